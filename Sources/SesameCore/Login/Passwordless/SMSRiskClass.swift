/// The two classes of SMS destinations, each with its own hourly budget and per-address limit
/// (``SMSCountryPolicy``), so that pumping, which concentrates on a few destinations, spends
/// the high-risk class's budget and never the one real users in ordinary countries depend on.
///
/// A destination is high-risk when texts to it are a known source of toll fraud (International
/// Revenue Share Fraud): carriers there pay the number's holder a share of the termination fee,
/// so an attacker who owns numbers there earns from every code a deployment sends. These are
/// the destinations telecom fraud reports (GSMA, CFCA) and SMS providers' "geo permission"
/// defaults name again and again: satellite and international networks without a country,
/// small island and territory networks with high termination rates, and the Caribbean members
/// of the North American plan whose `+1` numbers look domestic ("one ring" fraud). Everything
/// else is low-risk. The grouping decides only which budget a text spends, never whether it
/// is sent: `connections.sms.allowed_countries` does that.
public enum SMSRiskClass: String, Sendable, CaseIterable {
    case low
    case high

    /// The class of an E.164 number: by calling code, and for `+1` by the plan country of its
    /// area code (``SMSCountryPolicy/country(of:)``). A number without a calling code is high-risk.
    public static func of(_ e164: String) -> SMSRiskClass {
        guard let country = SMSCountryPolicy.country(of: e164) else { return .high }
        if country.hasPrefix("1-") { return ["1-US", "1-CA"].contains(country) ? .low : .high }
        return highRiskCallingCodes.contains(country) ? .high : .low
    }

    /// Calling codes of high-risk destinations (the `+1` Caribbean is told apart by area code).
    static let highRiskCallingCodes: Set<String> = [
        // Satellite and international networks: no country, premium termination rates.
        "870", "871", "872", "873", "874", "881", "882", "883", "888", "979",
        // Pacific islands and territories.
        "672", "674", "675", "676", "677", "678", "679", "680", "682", "683", "685", "686", "688", "690", "691", "692",
        // Atlantic and Indian Ocean territories and islands.
        "246", "247", "290", "500", "960",
        // African destinations toll-fraud reports list most often.
        "216", "222", "224", "225", "231", "232", "235", "236", "239", "241", "242", "245", "252", "253", "257", "261",
        "269",
        // European and Asian destinations with premium ranges pumping favours.
        "355", "370", "371", "373", "375", "992", "993", "994", "996", "998",
        // Others with high termination fees: Cuba, Timor-Leste, North Korea.
        "53", "670", "850",
    ]
}
