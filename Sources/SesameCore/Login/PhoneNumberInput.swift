/// Turns what a person types into the hosted page's phone field into E.164 (`+14155550123`).
///
/// People type numbers the way they read them on a card: with spaces, dashes, brackets, a `00`
/// international prefix, or in national form with a trunk prefix (`07700 900123` in the UK).
/// International input is accepted anywhere; national input needs the application's default
/// country to supply the calling code. Anything ambiguous is refused rather than guessed, so a
/// code is never sent to a stranger's phone.
public enum PhoneNumberInput {
    /// The number in E.164 form, or nil when it cannot be read as one.
    ///
    /// - Spaces (including non-breaking ones), `-`, `.`, `(`, `)` and `/` are ignored, and so is
    ///   the `(0)` written inside international numbers (`+44 (0)7700 900123`).
    /// - A leading `00` means `+`. `+` and 1–15 digits, the first not 0, is returned as is.
    /// - Otherwise, digits only are read as a national number of `defaultCountry`: its trunk
    ///   prefix, when typed, is dropped and its calling code prepended; the result must have
    ///   8–15 digits.
    /// - Either way, a number of a country in the table must fit that country's ``NumberPlan``
    ///   (first digit and length), so a number typed for another country is refused.
    ///
    /// Not handled: other international prefixes (`011` in North America, `0011` in Australia) and
    /// Argentina's mobile `15`; such input mostly comes out too long and is refused.
    /// - Parameters:
    ///   - typed: The field's value as typed.
    ///   - defaultCountry: The country national numbers belong to; nil accepts international ones only.
    public static func e164(_ typed: String, defaultCountry: DefaultCountry?) -> String? {
        var compact = typed.filter { !$0.isWhitespace }
        if compact.hasPrefix("+") || compact.hasPrefix("00") {
            // "+44 (0)20 …" marks the trunk 0 a caller inside the country dials; it is not part of the number.
            compact = compact.replacing("(0)", with: "")
        }
        compact = compact.filter { !separators.contains($0) }
        if compact.hasPrefix("00") {
            compact = "+" + compact.dropFirst(2)
        }
        if compact.hasPrefix("+") {
            let digits = compact.dropFirst()
            guard (1...15).contains(digits.count), isDigits(digits), digits.first != "0" else { return nil }
            return fitsPlan(String(digits)) ? compact : nil
        }
        guard let country = defaultCountry, !compact.isEmpty, isDigits(compact) else { return nil }
        let number = country.callingCode + country.nationalNumber(compact)
        guard (8...15).contains(number.count), fitsPlan(number) else { return nil }
        return "+" + number
    }

    /// Whether an E.164 number's digits (without `+`) fit its country's ``NumberPlan``; numbers
    /// of calling codes outside the table pass, as E.164's own limits are all we know of them.
    static func fitsPlan(_ digits: String) -> Bool {
        guard let code = callingCode(of: digits), let plan = NumberPlan.of(callingCode: code) else { return true }
        return plan.admits(digits.dropFirst(code.count))
    }

    /// Punctuation people put between digit groups; whitespace is dropped separately.
    /// The Unicode hyphens arrive when a number is pasted from a document.
    static let separators: Set<Character> = ["-", ".", "(", ")", "/", "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}"]

    /// Whether `text` is ASCII digits only: `Character.isNumber` alone also accepts `١٢٣` and `½`.
    static func isDigits(_ text: some StringProtocol) -> Bool {
        text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `text` without leading and trailing whitespace, without needing Foundation.
    static func trimmed(_ text: String) -> Substring {
        guard let start = text.firstIndex(where: { !$0.isWhitespace }),
            let end = text.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return text[start...end]
    }

    /// The country a national number belongs to: its calling code and trunk prefix.
    /// The calling code that begins `digits` (an E.164 number without `+`). Calling codes are
    /// prefix-free: `1` and `7` stand alone, then the assigned 2-digit codes, else 3 digits.
    public static func callingCode(of digits: some StringProtocol) -> String? {
        guard let first = digits.first, first != "0", isDigits(digits) else { return nil }
        if first == "1" || first == "7" { return String(first) }
        let two = String(digits.prefix(2))
        if DefaultCountry.twoDigitCodes.contains(two) { return two }
        return digits.count >= 3 ? String(digits.prefix(3)) : nil
    }

    public struct DefaultCountry: Sendable, Equatable {
        /// The country calling code, digits only (`44`).
        public let callingCode: String
        /// The ISO 3166-1 alpha-2 code, upper-case (`GB`); nil when configured by calling code,
        /// which several countries may share (`1`, `7`, `44`).
        public let isoCode: String?
        /// The trunk prefixes dropped from national input, tried in order.
        let trunkPrefixes: [TrunkPrefix]

        /// Reads an application's setting: an ISO 3166-1 alpha-2 code (`GB`, `us`) or a calling code (`+44`, `44`).
        ///
        /// A calling code takes the trunk prefix of the table's country with that code, and `0` for
        /// codes not in the table. Returns nil for an unknown ISO code and for a number that is not
        /// a calling code (`+`, `+4`, `+441`).
        /// - Parameter setting: The configured value; surrounding whitespace is ignored.
        public init?(_ setting: String) {
            let trimmed = PhoneNumberInput.trimmed(setting)
            let digits = String(trimmed.hasPrefix("+") ? trimmed.dropFirst() : trimmed)
            if !digits.isEmpty, PhoneNumberInput.isDigits(digits) {
                guard Self.isCallingCode(digits) else { return nil }
                let country = Self.countries.first { $0.callingCode == digits }
                self.init(callingCode: digits, isoCode: nil, trunkPrefixes: country?.trunkPrefixes ?? Self.zero)
            } else if let country = Self.countries.first(where: { $0.isoCode == trimmed.uppercased() }) {
                self = country
            } else {
                return nil
            }
        }

        init(callingCode: String, isoCode: String?, trunkPrefixes: [TrunkPrefix]) {
            self.callingCode = callingCode
            self.isoCode = isoCode
            self.trunkPrefixes = trunkPrefixes
        }

        /// `digits` without the trunk prefix, when it starts with one that applies.
        func nationalNumber(_ digits: String) -> String {
            for trunk in trunkPrefixes where trunk.applies(to: digits) {
                return String(digits.dropFirst(trunk.digits.count))
            }
            return digits
        }

        /// Whether `digits` has the shape of an assigned country calling code.
        ///
        /// Calling codes are prefix-free: 1 and 7 stand alone, a list of 2-digit codes, and
        /// 3 digits for everything else. This refuses typos like `4` or `441` without a full list.
        static func isCallingCode(_ digits: String) -> Bool {
            PhoneNumberInput.callingCode(of: digits) == digits
        }

        static let twoDigitCodes: Set<String> = [
            "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45", "46", "47", "48",
            "49", "51", "52", "53", "54", "55", "56", "57", "58", "60", "61", "62", "63", "64", "65", "66", "81",
            "82", "84", "86", "90", "91", "92", "93", "94", "95", "98",
        ]

        /// The usual trunk prefix.
        static let zero = [TrunkPrefix("0")]
        /// No trunk prefix: a leading 0 (Italy, Côte d'Ivoire) is part of the number.
        static let none: [TrunkPrefix] = []
        /// North America dials `1` before the 10-digit number.
        static let nanp = [TrunkPrefix("1", whenLength: 11)]
        /// Russia and Kazakhstan dial `8` before the 10-digit number.
        static let eight = [TrunkPrefix("8", whenLength: 11)]

        private static func country(_ iso: String, _ code: String, _ trunk: [TrunkPrefix]) -> DefaultCountry {
            DefaultCountry(callingCode: code, isoCode: iso, trunkPrefixes: trunk)
        }

        /// The countries a default may name: all of the EU/EEA and the most populous or most
        /// common elsewhere. For a shared calling code the first row decides a code-only setting.
        static let countries: [DefaultCountry] = [
            // EU and EEA.
            country("AT", "43", zero), country("BE", "32", zero), country("BG", "359", zero),
            country("HR", "385", zero), country("CY", "357", none), country("CZ", "420", none),
            country("DK", "45", none), country("EE", "372", none), country("FI", "358", zero),
            country("FR", "33", zero), country("DE", "49", zero), country("GR", "30", none),
            // Hungary's trunk prefix is 06 (`06 20 123 4567`).
            country("HU", "36", [TrunkPrefix("06")]), country("IE", "353", zero), country("IT", "39", none),
            country("LV", "371", none),
            // Lithuania replaced its trunk 8 by 0 in 2025; 8 is still typed from habit (8 + 8 digits).
            country("LT", "370", [TrunkPrefix("0"), TrunkPrefix("8", whenLength: 9)]),
            country("LU", "352", none), country("MT", "356", none), country("NL", "31", zero),
            country("PL", "48", none), country("PT", "351", none), country("RO", "40", zero),
            country("SK", "421", zero), country("SI", "386", zero), country("ES", "34", none),
            country("SE", "46", zero), country("IS", "354", none), country("LI", "423", none),
            country("NO", "47", none),
            // Rest of Europe.
            country("GB", "44", zero), country("CH", "41", zero), country("RS", "381", zero),
            country("UA", "380", zero), country("RU", "7", eight), country("KZ", "7", eight),
            country("TR", "90", zero),
            // North America (NANP) and Latin America.
            country("US", "1", nanp), country("CA", "1", nanp), country("PR", "1", nanp),
            country("DO", "1", nanp), country("JM", "1", nanp),
            // Mexico dropped 01/044/045 in 2019; old habits still type them before the 10 digits.
            country(
                "MX", "52",
                [
                    TrunkPrefix("01", whenLength: 12), TrunkPrefix("044", whenLength: 13),
                    TrunkPrefix("045", whenLength: 13),
                ]),
            country("BR", "55", zero), country("AR", "54", zero), country("CL", "56", none),
            country("CO", "57", none), country("PE", "51", zero), country("VE", "58", zero),
            country("EC", "593", zero), country("UY", "598", zero),
            // Asia and Oceania.
            country("AU", "61", zero), country("NZ", "64", zero), country("JP", "81", zero),
            country("KR", "82", zero), country("CN", "86", zero), country("HK", "852", none),
            country("TW", "886", zero), country("IN", "91", zero), country("PK", "92", zero),
            country("BD", "880", zero), country("ID", "62", zero), country("PH", "63", zero),
            country("SG", "65", none), country("MY", "60", zero), country("TH", "66", zero),
            country("VN", "84", zero),
            // Middle East and Africa.
            country("IL", "972", zero), country("AE", "971", zero), country("SA", "966", zero),
            country("QA", "974", none), country("KW", "965", none), country("IR", "98", zero),
            country("EG", "20", zero), country("MA", "212", zero), country("DZ", "213", zero),
            country("TN", "216", none), country("ZA", "27", zero), country("NG", "234", zero),
            country("GH", "233", zero), country("KE", "254", zero), country("ET", "251", zero),
            country("TZ", "255", zero), country("CI", "225", none),
        ]
    }

    /// A trunk prefix: the digits dialled before a national number within the country.
    struct TrunkPrefix: Sendable, Equatable {
        let digits: String
        /// The total length the typed number must have for `digits` to be a trunk prefix, for
        /// prefixes that can also begin a number (`1` in North America, `8` in Russia).
        let whenLength: Int?

        init(_ digits: String, whenLength: Int? = nil) {
            self.digits = digits
            self.whenLength = whenLength
        }

        func applies(to number: String) -> Bool {
            number.hasPrefix(digits) && (whenLength.map { number.count == $0 } ?? true)
        }
    }
}
