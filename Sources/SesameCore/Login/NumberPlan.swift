/// What a country's phone numbers look like after the calling code: the digits a national
/// significant number may begin with and the lengths it may have.
///
/// The hosted page checks typed numbers against this before anything is sent, so a number
/// typed for the wrong country (`(415) 555-0123` with a default country of `GB`) is refused
/// instead of texting `+44 4155 550123`, which may be a stranger's phone. The rules are deliberately
/// coarse (first digit and length, for the fixed, mobile, personal and VoIP ranges of every
/// territory sharing the calling code, as in the ITU numbering plans that libphonenumber
/// summarises): a real number must never be refused, and the first digit with the length
/// already tells apart most numbers typed for the wrong country.
struct NumberPlan: Sendable, Equatable {
    /// The digits a national significant number may begin with.
    let leadingDigits: Set<Character>
    /// The lengths a national significant number may have.
    let lengths: Set<Int>
    /// North America: the exchange (the 4th digit) begins with 2–9 as the area code does.
    let exchangeRule: Bool

    init(_ leadingDigits: String, _ lengths: [Int], exchangeRule: Bool = false) {
        self.leadingDigits = Set(leadingDigits)
        self.lengths = Set(lengths)
        self.exchangeRule = exchangeRule
    }

    /// Whether `national` (digits only, without calling code or trunk prefix) fits the plan.
    func admits(_ national: some StringProtocol) -> Bool {
        guard let first = national.first, leadingDigits.contains(first), lengths.contains(national.count) else {
            return false
        }
        guard exchangeRule else { return true }
        let exchange = national.dropFirst(3).first
        return exchange.map { $0 >= "2" && $0 <= "9" } ?? false
    }

    /// The plan of the calling code's countries, or nil for a code outside the table (then only
    /// E.164's own limits apply).
    static func of(callingCode: String) -> NumberPlan? { plans[callingCode] }

    /// Keyed by calling code; covers every country of ``PhoneNumberInput/DefaultCountry``'s table.
    static let plans: [String: NumberPlan] = [
        "1": NumberPlan("23456789", [10], exchangeRule: true), "7": NumberPlan("34789", [10]),
        "20": NumberPlan("12345689", [8, 9, 10]), "27": NumberPlan("12345678", [5, 6, 7, 8, 9, 10]),
        "30": NumberPlan("25679", [10]), "31": NumberPlan("123456789", [5, 6, 9, 11]),
        "32": NumberPlan("123456789", [8, 9]), "33": NumberPlan("123456789", [9]),
        "34": NumberPlan("456789", [9]), "36": NumberPlan("123456789", [8, 9]),
        "39": NumberPlan("01345", [6, 7, 8, 9, 10, 11, 12]), "40": NumberPlan("23678", [6, 9]),
        "41": NumberPlan("23456789", [9]), "43": NumberPlan("1234567", [4, 5, 6, 7, 8, 9, 10, 11, 12, 13]),
        "44": NumberPlan("12357", [9, 10]), "45": NumberPlan("23456789", [8]),
        "46": NumberPlan("123456789", [7, 8, 9]), "47": NumberPlan("023456789", [5, 8]),
        "48": NumberPlan("123456789", [6, 7, 8, 9]),
        "49": NumberPlan("123456789", [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]),
        "51": NumberPlan("1456789", [8, 9]), "52": NumberPlan("23456789", [10]),
        "54": NumberPlan("123689", [10, 11]), "55": NumberPlan("123456789", [10, 11]),
        "56": NumberPlan("23456789", [9]), "57": NumberPlan("3469", [8, 10]), "58": NumberPlan("2456", [10]),
        "60": NumberPlan("13456789", [8, 9, 10]), "61": NumberPlan("123478", [5, 6, 7, 8, 9]),
        "62": NumberPlan("123456789", [7, 8, 9, 10, 11, 12]), "63": NumberPlan("23456789", [6, 8, 9, 10]),
        "64": NumberPlan("2346789", [5, 6, 7, 8, 9, 10]), "65": NumberPlan("36789", [8, 11]),
        "66": NumberPlan("123456789", [8, 9]), "81": NumberPlan("123456789", [9, 10]),
        "82": NumberPlan("1234567", [5, 6, 8, 9, 10, 11]), "84": NumberPlan("12356789", [7, 8, 9, 10]),
        "86": NumberPlan("123456789", [7, 8, 9, 10, 11]), "90": NumberPlan("23458", [7, 10]),
        "91": NumberPlan("123456789", [10]), "92": NumberPlan("123456789", [9, 10, 11, 12]),
        "98": NumberPlan("123456789", [4, 5, 6, 7, 10]), "212": NumberPlan("5678", [9]),
        "213": NumberPlan("12345679", [8, 9]), "216": NumberPlan("2345789", [8]),
        "225": NumberPlan("02", [10]), "233": NumberPlan("235", [9]),
        "234": NumberPlan("2789", [10, 11, 12, 13, 14]), "251": NumberPlan("12345789", [9]),
        "254": NumberPlan("124567", [7, 8, 9]), "255": NumberPlan("2467", [9]),
        "351": NumberPlan("1236789", [9]), "352": NumberPlan("23456789", [4, 5, 6, 7, 8, 9, 10, 11]),
        "353": NumberPlan("12456789", [7, 8, 9, 10]), "354": NumberPlan("345678", [7, 9]),
        "356": NumberPlan("23579", [8]), "357": NumberPlan("2579", [8]),
        "358": NumberPlan("123456789", [5, 6, 7, 8, 9, 10, 11, 12]),
        "359": NumberPlan("23456789", [6, 7, 8, 9]), "370": NumberPlan("3456789", [8]),
        "371": NumberPlan("26", [8]), "372": NumberPlan("345678", [7, 8]), "380": NumberPlan("3456789", [9]),
        "381": NumberPlan("12367", [6, 7, 8, 9, 10, 11, 12]), "385": NumberPlan("12345679", [8, 9]),
        "386": NumberPlan("12345678", [8]), "420": NumberPlan("2345679", [9]),
        "421": NumberPlan("2345689", [6, 7, 9]), "423": NumberPlan("23678", [7, 9]),
        "593": NumberPlan("2345679", [8, 9]), "598": NumberPlan("1249", [4, 5, 8]),
        "852": NumberPlan("23456789", [8]), "880": NumberPlan("123456789", [6, 7, 8, 9, 10]),
        "886": NumberPlan("23456789", [8, 9, 10, 11]), "965": NumberPlan("24569", [8]),
        "966": NumberPlan("15", [9]), "971": NumberPlan("2345679", [8, 9]),
        "972": NumberPlan("12345789", [8, 9, 10, 11, 12]), "974": NumberPlan("234567", [7, 8]),
    ]
}
