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

    /// The attack this stops is an accident an attacker can also arrange: a number typed for the
    /// wrong country still has E.164's shape, so without the plan check `(415) 555-0123` under a
    /// default country of `GB` became `+444155550123` and a login code went to whoever holds it.
    @Test(
        "a number that does not fit its country's numbering plan is refused, so no code goes to a stranger",
        arguments: [
            PhoneCase("(415) 555-0123", "GB", nil),
            PhoneCase("+44 4155 550123", nil, nil),
            PhoneCase("0612345678", "GB", nil),
            PhoneCase("555 0123", "US", nil),
            PhoneCase("+1 415 055 0123", nil, nil),
            PhoneCase("+1 115 555 0123", nil, nil),
            PhoneCase("0612 345 67", "FR", nil),
            PhoneCase("+33 6 12 34 56 7", nil, nil),
            PhoneCase("+49 0151 2345 6789", nil, nil),
            PhoneCase("+91 01234 56789", nil, nil),
        ])
    func outsideThePlan(_ phone: PhoneCase) {
        let country = phone.country.flatMap { DefaultCountry($0) }
        #expect(PhoneNumberInput.e164(phone.typed, defaultCountry: country) == phone.expected)
    }

    /// A mobile and a fixed-line number of each country, in E.164 without `+`, from the
    /// numbering plans' own examples: the plan check must never refuse a real number.
    static let planExamples = [
        "AT:43664123456", "AT:431234567890", "BE:32450001234", "BE:3212345678", "BG:35943012345",
        "BG:3592123456", "HR:385921234567", "HR:38512345678", "CY:35796123456", "CY:35722345678",
        "CZ:420601123456", "CZ:420212345678", "DK:4534412345", "DK:4532123456", "EE:37251234567",
        "EE:3723212345", "FI:358412345678", "FI:358131234567", "FR:33612345678", "FR:33123456789",
        "DE:4915123456789", "DE:4930123456", "GR:306912345678", "GR:302123456789", "HU:36201234567",
        "HU:3612345678", "IE:353850123456", "IE:3532212345", "IT:393123456789", "IT:390212345678",
        "LV:37121234567", "LV:37163123456", "LT:37061234567", "LT:37031234567", "LU:352628123456",
        "LU:35227123456", "MT:35696961234", "MT:35621001234", "NL:31612345678", "NL:31101234567",
        "PL:48512345678", "PL:48123456789", "PT:351912345678", "PT:351212345678", "RO:40712034567",
        "RO:40211234567", "SK:421912123456", "SK:421221234567", "SI:38631234567", "SI:38612345678",
        "ES:34612345678", "ES:34810123456", "SE:46701234567", "SE:468123456", "IS:3546111234",
        "IS:3544101234", "LI:423660234567", "LI:4232345678", "NO:4740612345", "NO:4721234567",
        "GB:447400123456", "GB:441212345678", "CH:41781234567", "CH:41212345678", "RS:381601234567",
        "RS:38110234567", "UA:380501234567", "UA:380311234567", "RU:79123456789", "RU:73011234567",
        "KZ:77710009998", "KZ:77123456789", "TR:905012345678", "TR:902123456789", "US:12015550123",
        "US:12015550123", "CA:15062345678", "CA:15062345678", "PR:17872345678", "PR:17872345678",
        "DO:18092345678", "DO:18092345678", "JM:18762101234", "JM:18765230123", "MX:522221234567",
        "MX:522001234567", "BR:5511961234567", "BR:551123456789", "AR:5491123456789", "AR:541123456789",
        "CL:56221234567", "CL:56600123456", "CO:573211234567", "CO:576012345678", "PE:51912345678",
        "PE:5111234567", "VE:584121234567", "VE:582121234567", "EC:593991234567", "EC:59322123456",
        "UY:59894231234", "UY:59821231234", "AU:61412345678", "AU:61212345678", "NZ:64211234567",
        "NZ:6432345678", "JP:819012345678", "JP:81312345678", "KR:821020000000", "KR:8222123456",
        "CN:8613123456789", "CN:861012345678", "HK:85251234567", "HK:85221234567", "TW:886912345678",
        "TW:886221234567", "IN:918123456789", "IN:917410410123", "PK:923012345678", "PK:922123456789",
        "BD:8801812345678", "BD:88027111234", "ID:62812345678", "ID:62218350123", "PH:639051234567",
        "PH:63232345678", "SG:6581234567", "SG:6561234567", "MY:60123456789", "MY:60323856789",
        "TH:66812345678", "TH:6621234567", "VN:84912345678", "VN:842101234567", "IL:972502345678",
        "IL:97221234567", "AE:971501234567", "AE:97122345678", "SA:966512345678", "SA:966112345678",
        "QA:97433123456", "QA:97444123456", "KW:96550012345", "KW:96522345678", "IR:989123456789",
        "IR:982123456789", "EG:201001234567", "EG:20234567890", "MA:212650123456", "MA:212520123456",
        "DZ:213551234567", "DZ:21312345678", "TN:21620123456", "TN:21630010123", "ZA:27711234567",
        "ZA:27101234567", "NG:2348021234567", "NG:2342033123456", "GH:233231234567", "GH:233302345678",
        "KE:254712123456", "KE:254202012345", "ET:251911234567", "ET:251111112345", "TZ:255621234567",
        "TZ:255222345678", "CI:2250123456789", "CI:2252123456789",
    ]

    @Test("every country's example mobile and fixed numbers pass, typed internationally and nationally")
    func realNumbersPass() throws {
        for example in Self.planExamples {
            let (iso, digits) = (String(example.prefix(2)), String(example.dropFirst(3)))
            #expect(PhoneNumberInput.e164("+" + digits, defaultCountry: nil) == "+" + digits, "\(example)")
            let country = try #require(DefaultCountry(iso))
            let national = String(digits.dropFirst(country.callingCode.count))
            #expect(PhoneNumberInput.e164(national, defaultCountry: country) == "+" + digits, "\(example)")
        }
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
            #expect(NumberPlan.of(callingCode: country.callingCode) != nil, "\(country.callingCode)")
        }
    }
}
