import Testing

@testable import SesameCore

/// One typed value, the application's default country setting, and the E.164 it should become.
struct PhoneCase: Sendable, CustomStringConvertible {
    let typed: String
    let country: String?
    let expected: String?

    init(_ typed: String, _ country: String?, _ expected: String?) {
        self.typed = typed
        self.country = country
        self.expected = expected
    }

    var description: String { "\(typed) in \(country ?? "no country")" }
}

@Suite("Typed phone numbers to E.164")
struct PhoneNumberInputTests {
    typealias DefaultCountry = PhoneNumberInput.DefaultCountry

    @Test(
        "international and national input becomes E.164",
        arguments: [
            PhoneCase("+44 7700 900123", nil, "+447700900123"),
            PhoneCase("+44 (0)20 7946 0958", nil, "+442079460958"),
            PhoneCase("0041 44 668 18 00", nil, "+41446681800"),
            PhoneCase("0044 (0) 20 7946 0958", "US", "+442079460958"),
            PhoneCase("+1 415 555 0123", "GB", "+14155550123"),
            PhoneCase("07700 900123", "GB", "+447700900123"),
            PhoneCase("07700 900123", "44", "+447700900123"),
            PhoneCase("(415) 555-0123", "US", "+14155550123"),
            PhoneCase("1 415 555 0123", "US", "+14155550123"),
            PhoneCase("415.555.0123", "+1", "+14155550123"),
            PhoneCase("06 12 34 56 78", "FR", "+33612345678"),
            PhoneCase("06\u{00A0}12\u{202F}34 56 78", "fr", "+33612345678"),
            PhoneCase("02 1234 5678", "IT", "+390212345678"),
            PhoneCase("02 1234 5678", "+39", "+390212345678"),
            PhoneCase("8 912 345 67 89", "RU", "+79123456789"),
            PhoneCase("912 345 67 89", "RU", "+79123456789"),
            PhoneCase("8 912 345 67 89", "+7", "+79123456789"),
            PhoneCase("06 20 123 4567", "HU", "+36201234567"),
            PhoneCase("8 612 34567", "LT", "+37061234567"),
            PhoneCase("0 612 34567", "LT", "+37061234567"),
            PhoneCase("612 345 678", "ES", "+34612345678"),
            PhoneCase("(11) 91234-5678", "BR", "+5511912345678"),
            PhoneCase("044 55 1234 5678", "MX", "+525512345678"),
            PhoneCase("07 01 02 03 04", "CI", "+2250701020304"),
            PhoneCase("0412 345 678", "AU", "+61412345678"),
            PhoneCase("0412 345 678", "61", "+61412345678"),
        ])
    func accepted(_ phone: PhoneCase) {
        let country = phone.country.flatMap { DefaultCountry($0) }
        #expect(PhoneNumberInput.e164(phone.typed, defaultCountry: country) == phone.expected)
    }

    @Test(
        "input that is not a phone number, or is national without a country, is refused",
        arguments: [
            PhoneCase("07700 900123", nil, nil),
            PhoneCase("4155550123", nil, nil),
            PhoneCase("call me", "GB", nil),
            PhoneCase("0770O 900123", "GB", nil),
            PhoneCase("+0123", nil, nil),
            PhoneCase("+", nil, nil),
            PhoneCase("", "GB", nil),
            PhoneCase("+1234567890123456", nil, nil),
            PhoneCase("0012345678901234567", nil, nil),
            PhoneCase("0123456789012345678", "GB", nil),
            PhoneCase("123", "GB", nil),
            PhoneCase("+44 7700 900123 ext 5", nil, nil),
            PhoneCase("+44+7700", nil, nil),
            PhoneCase("+١٢٣٤٥٦٧٨", nil, nil),
        ])
    func refused(_ phone: PhoneCase) {
        let country = phone.country.flatMap { DefaultCountry($0) }
        #expect(PhoneNumberInput.e164(phone.typed, defaultCountry: country) == nil)
    }

    @Test("a default country is an ISO code or a calling code")
    func defaultCountries() {
        #expect(DefaultCountry("+44")?.callingCode == "44")
        #expect(DefaultCountry("44")?.callingCode == "44")
        #expect(DefaultCountry("gb")?.callingCode == "44")
        #expect(DefaultCountry(" GB ")?.isoCode == "GB")
        #expect(DefaultCountry("+44")?.isoCode == nil)
        #expect(DefaultCountry("us") == DefaultCountry("US"))
        #expect(DefaultCountry("+977")?.callingCode == "977")
    }

    @Test(
        "unknown countries and impossible calling codes are refused",
        arguments: ["XX", "+", "", "+4", "441", "+044", "0", "GBR", "1234", "+4x"])
    func refusedCountries(setting: String) {
        #expect(DefaultCountry(setting) == nil)
    }

    @Test("the country table covers the EU/EEA and the common countries, once each, with valid codes")
    func table() {
        let required = [
            "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU",
            "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "IS", "LI", "NO", "GB", "CH", "US", "CA", "MX", "BR",
            "AR", "CL", "CO", "AU", "NZ", "JP", "KR", "CN", "IN", "ID", "PH", "SG", "MY", "TH", "VN", "ZA", "NG", "KE",
            "EG", "MA", "TR", "IL", "AE", "SA", "RU", "UA",
        ]
        for iso in required {
            #expect(DefaultCountry(iso) != nil, "\(iso)")
        }
        let isoCodes = DefaultCountry.countries.compactMap(\.isoCode)
        #expect(Set(isoCodes).count == DefaultCountry.countries.count)
        for country in DefaultCountry.countries {
            #expect(DefaultCountry.isCallingCode(country.callingCode), "\(country.callingCode)")
        }
    }
}
