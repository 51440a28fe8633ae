/// Where and how much a deployment texts: the defence against SMS pumping (toll fraud), in
/// which bots request codes for premium-rate numbers the attacker is paid for. Each refused
/// request costs nothing: it is answered before anything is sent.
///
/// Countries are told apart by calling code (`+44`), and the countries of the North American
/// numbering plan, which share `+1`, by area code (``NANPAreaCodes``): an allow-list of `US`
/// admits `+1 415` but not Jamaica's `+1 876`, and each of them has its own budget.
public struct SMSCountryPolicy: Sendable, Equatable {
    /// Calling codes (`"44"`) numbers may have; nil allows every country.
    public var allowedCallingCodes: Set<String>?
    /// When `1` is allowed: the countries of the plan allowed (`"US"`, `"CA"`), by area code;
    /// nil allows every `+1` number. Non-geographic `+1` numbers (toll-free, `900`) belong to
    /// none of them, so only a whole `+1` admits them.
    public var allowedNANPCountries: Set<String>?
    /// Texts per calling code per hour: pumping concentrates on a few premium ranges, while a
    /// real sign-up wave in one country stays well below.
    public var perCountryHourly = 200
    /// Texts per hour to low-risk destinations (``SMSRiskClass``) in all: the ceiling on what
    /// an attack spread over many countries costs. High-risk destinations have their own
    /// budget, so pumping them cannot spend this one.
    public var hourly = 1000
    /// Texts per hour to high-risk destinations in all.
    public var highRiskHourly = 200
    /// Texts per hour one client address may send to low-risk destinations: checked before
    /// the class's budget, so one source cannot spend it alone.
    public var perIPHourly = 50
    /// Texts per hour one client address may send to high-risk destinations.
    public var highRiskPerIPHourly = 10

    /// The defaults: every country; per hour 200 texts per country, 1,000 to low-risk and 200
    /// to high-risk destinations, and per client address 50 to low-risk and 10 to high-risk ones.
    public init() {}

    /// The hourly budget of `riskClass` in all, and per client address.
    public func hourlyBudget(of riskClass: SMSRiskClass) -> (all: Int, perIP: Int) {
        switch riskClass {
        case .low: (hourly, perIPHourly)
        case .high: (highRiskHourly, highRiskPerIPHourly)
        }
    }

    /// The calling code of an E.164 number (`+447700900123` → `44`).
    public static func callingCode(of e164: String) -> String? {
        PhoneNumberInput.callingCode(of: e164.drop { $0 == "+" })
    }

    /// The country of an E.164 number as the policy counts it: its calling code (`44`), and
    /// for `+1` the plan country of its area code (`1-US`, `1-JM`), so that one country's area
    /// codes share a budget and no other's; `1-nongeographic` for toll-free and premium-rate
    /// codes. Nil for a number without a calling code.
    public static func country(of e164: String) -> String? {
        guard let code = callingCode(of: e164) else { return nil }
        guard code == "1" else { return code }
        let national = e164.drop { $0 == "+" }.dropFirst()
        return "1-" + (NANPAreaCodes.country(ofNational: national) ?? "nongeographic")
    }

    /// How a refusal names the number's country: `+44`, or `+1 876` for a plan number.
    public static func label(of e164: String) -> String {
        guard let code = callingCode(of: e164) else { return "+unknown" }
        guard code == "1" else { return "+\(code)" }
        return "+1 " + e164.drop { $0 == "+" }.dropFirst().prefix(3)
    }

    /// Whether numbers with this calling code may be texted (for `+1`, some of them may be:
    /// ``allows(number:)`` decides by area code).
    public func allows(callingCode: String) -> Bool {
        allowedCallingCodes?.contains(callingCode) ?? true
    }

    /// Whether this E.164 number may be texted: its calling code is allowed and, for `+1`,
    /// its area code belongs to an allowed country of the plan.
    public func allows(number e164: String) -> Bool {
        guard let code = Self.callingCode(of: e164), allows(callingCode: code) else { return false }
        guard code == "1", let allowed = allowedNANPCountries else { return true }
        guard let country = NANPAreaCodes.country(ofNational: e164.drop { $0 == "+" }.dropFirst()) else { return false }
        return allowed.contains(country)
    }

    /// Whether `iso` (`US`, `JM`) is a country of the North American numbering plan, which an
    /// allow-list tells apart by area code.
    public static func isNANPCountry(_ iso: String) -> Bool {
        NANPAreaCodes.isMember(iso.uppercased())
    }
}
