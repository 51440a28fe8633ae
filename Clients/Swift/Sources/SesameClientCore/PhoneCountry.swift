public import Foundation

/// A country in the phone number field's picker: its flag, name and dialing code, and the
/// E.164 number a national number becomes.
public struct PhoneCountry: Sendable, Hashable, Identifiable {
    /// ISO 3166-1 alpha-2, upper case (`US`).
    public let isoCode: String
    /// The English name, for when the system has no localized one.
    public let name: String
    /// The country calling code without `+` (`1`, `44`).
    public let dialingCode: String

    /// Creates a country.
    public init(isoCode: String, name: String, dialingCode: String) {
        self.isoCode = isoCode
        self.name = name
        self.dialingCode = dialingCode
    }

    public var id: String { isoCode }

    /// The flag emoji: the ISO code's letters as regional indicator symbols.
    public var flag: String {
        String(String.UnicodeScalarView(isoCode.unicodeScalars.compactMap { Unicode.Scalar(0x1F1A5 + $0.value) }))
    }

    /// The name in `locale`'s language, or ``name``.
    public func localizedName(in locale: Locale = .current) -> String {
        locale.localizedString(forRegionCode: isoCode) ?? name
    }

    /// The E.164 number for `nationalNumber` as typed (spaces, dashes and a leading trunk 0
    /// dropped; Italy keeps its 0), or nil when it cannot be a phone number. A number typed
    /// with its own `+` is taken as it is.
    public func e164(_ nationalNumber: String) -> String? {
        let typed = LoginIdentifier.normalized(nationalNumber)
        if typed.hasPrefix("+") { return LoginIdentifier.isPhoneNumber(typed) ? typed : nil }
        guard typed.allSatisfy({ $0.isASCII && ($0.isNumber || " -.()".contains($0)) }) else { return nil }
        var digits = typed.filter(\.isNumber)
        if digits.hasPrefix("0") && isoCode != "IT" { digits.removeFirst() }
        let number = "+" + dialingCode + digits
        return LoginIdentifier.isPhoneNumber(number) ? number : nil
    }

    /// The countries of the picker, by English name.
    public static let all: [PhoneCountry] = [
        PhoneCountry(isoCode: "AR", name: "Argentina", dialingCode: "54"),
        PhoneCountry(isoCode: "AU", name: "Australia", dialingCode: "61"),
        PhoneCountry(isoCode: "AT", name: "Austria", dialingCode: "43"),
        PhoneCountry(isoCode: "BE", name: "Belgium", dialingCode: "32"),
        PhoneCountry(isoCode: "BR", name: "Brazil", dialingCode: "55"),
        PhoneCountry(isoCode: "BG", name: "Bulgaria", dialingCode: "359"),
        PhoneCountry(isoCode: "CA", name: "Canada", dialingCode: "1"),
        PhoneCountry(isoCode: "CL", name: "Chile", dialingCode: "56"),
        PhoneCountry(isoCode: "CN", name: "China", dialingCode: "86"),
        PhoneCountry(isoCode: "CO", name: "Colombia", dialingCode: "57"),
        PhoneCountry(isoCode: "HR", name: "Croatia", dialingCode: "385"),
        PhoneCountry(isoCode: "CY", name: "Cyprus", dialingCode: "357"),
        PhoneCountry(isoCode: "CZ", name: "Czechia", dialingCode: "420"),
        PhoneCountry(isoCode: "DK", name: "Denmark", dialingCode: "45"),
        PhoneCountry(isoCode: "EG", name: "Egypt", dialingCode: "20"),
        PhoneCountry(isoCode: "EE", name: "Estonia", dialingCode: "372"),
        PhoneCountry(isoCode: "FI", name: "Finland", dialingCode: "358"),
        PhoneCountry(isoCode: "FR", name: "France", dialingCode: "33"),
        PhoneCountry(isoCode: "DE", name: "Germany", dialingCode: "49"),
        PhoneCountry(isoCode: "GR", name: "Greece", dialingCode: "30"),
        PhoneCountry(isoCode: "HK", name: "Hong Kong", dialingCode: "852"),
        PhoneCountry(isoCode: "HU", name: "Hungary", dialingCode: "36"),
        PhoneCountry(isoCode: "IS", name: "Iceland", dialingCode: "354"),
        PhoneCountry(isoCode: "IN", name: "India", dialingCode: "91"),
        PhoneCountry(isoCode: "ID", name: "Indonesia", dialingCode: "62"),
        PhoneCountry(isoCode: "IE", name: "Ireland", dialingCode: "353"),
        PhoneCountry(isoCode: "IL", name: "Israel", dialingCode: "972"),
        PhoneCountry(isoCode: "IT", name: "Italy", dialingCode: "39"),
        PhoneCountry(isoCode: "JP", name: "Japan", dialingCode: "81"),
        PhoneCountry(isoCode: "KE", name: "Kenya", dialingCode: "254"),
        PhoneCountry(isoCode: "LV", name: "Latvia", dialingCode: "371"),
        PhoneCountry(isoCode: "LT", name: "Lithuania", dialingCode: "370"),
        PhoneCountry(isoCode: "LU", name: "Luxembourg", dialingCode: "352"),
        PhoneCountry(isoCode: "MY", name: "Malaysia", dialingCode: "60"),
        PhoneCountry(isoCode: "MT", name: "Malta", dialingCode: "356"),
        PhoneCountry(isoCode: "MX", name: "Mexico", dialingCode: "52"),
        PhoneCountry(isoCode: "MA", name: "Morocco", dialingCode: "212"),
        PhoneCountry(isoCode: "NL", name: "Netherlands", dialingCode: "31"),
        PhoneCountry(isoCode: "NZ", name: "New Zealand", dialingCode: "64"),
        PhoneCountry(isoCode: "NG", name: "Nigeria", dialingCode: "234"),
        PhoneCountry(isoCode: "NO", name: "Norway", dialingCode: "47"),
        PhoneCountry(isoCode: "PK", name: "Pakistan", dialingCode: "92"),
        PhoneCountry(isoCode: "PE", name: "Peru", dialingCode: "51"),
        PhoneCountry(isoCode: "PH", name: "Philippines", dialingCode: "63"),
        PhoneCountry(isoCode: "PL", name: "Poland", dialingCode: "48"),
        PhoneCountry(isoCode: "PT", name: "Portugal", dialingCode: "351"),
        PhoneCountry(isoCode: "RO", name: "Romania", dialingCode: "40"),
        PhoneCountry(isoCode: "SA", name: "Saudi Arabia", dialingCode: "966"),
        PhoneCountry(isoCode: "RS", name: "Serbia", dialingCode: "381"),
        PhoneCountry(isoCode: "SG", name: "Singapore", dialingCode: "65"),
        PhoneCountry(isoCode: "SK", name: "Slovakia", dialingCode: "421"),
        PhoneCountry(isoCode: "SI", name: "Slovenia", dialingCode: "386"),
        PhoneCountry(isoCode: "ZA", name: "South Africa", dialingCode: "27"),
        PhoneCountry(isoCode: "KR", name: "South Korea", dialingCode: "82"),
        PhoneCountry(isoCode: "ES", name: "Spain", dialingCode: "34"),
        PhoneCountry(isoCode: "SE", name: "Sweden", dialingCode: "46"),
        PhoneCountry(isoCode: "CH", name: "Switzerland", dialingCode: "41"),
        PhoneCountry(isoCode: "TW", name: "Taiwan", dialingCode: "886"),
        PhoneCountry(isoCode: "TH", name: "Thailand", dialingCode: "66"),
        PhoneCountry(isoCode: "TR", name: "Türkiye", dialingCode: "90"),
        PhoneCountry(isoCode: "UA", name: "Ukraine", dialingCode: "380"),
        PhoneCountry(isoCode: "AE", name: "United Arab Emirates", dialingCode: "971"),
        PhoneCountry(isoCode: "GB", name: "United Kingdom", dialingCode: "44"),
        PhoneCountry(isoCode: "US", name: "United States", dialingCode: "1"),
        PhoneCountry(isoCode: "UY", name: "Uruguay", dialingCode: "598"),
        PhoneCountry(isoCode: "VN", name: "Vietnam", dialingCode: "84"),
    ]

    /// The country of `regionCode` (`Locale.current.region?.identifier`), the picker's first
    /// choice; nil when it is not in ``all``.
    public static func country(forRegion regionCode: String?) -> PhoneCountry? {
        guard let regionCode = regionCode?.uppercased() else { return nil }
        return all.first { $0.isoCode == regionCode }
    }

    /// The countries whose name, ISO code or dialing code matches `search` (the picker's
    /// search field); all of them for an empty search.
    public static func matching(_ search: String, locale: Locale = .current) -> [PhoneCountry] {
        let search = search.trimmingCharacters(in: .whitespaces).lowercased()
        guard !search.isEmpty else { return all }
        let digits = search.hasPrefix("+") ? String(search.dropFirst()) : search
        return all.filter { country in
            country.name.lowercased().contains(search) || country.localizedName(in: locale).lowercased().contains(search)
                || country.isoCode.lowercased() == search || country.dialingCode == digits
        }
    }
}
