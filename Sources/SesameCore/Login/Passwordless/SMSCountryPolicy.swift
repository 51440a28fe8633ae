/// Where and how much a deployment texts: the defence against SMS pumping (toll fraud), in
/// which bots request codes for premium-rate numbers the attacker is paid for. Each refused
/// request costs nothing: it is answered before anything is sent.
///
/// Countries are told apart by calling code (`+44`), so an allow-list of `US` also admits the
/// other North American numbering plan countries (`+1`), and a budget counts them together.
public struct SMSCountryPolicy: Sendable, Equatable {
    /// Calling codes (`"44"`) numbers may have; nil allows every country.
    public var allowedCallingCodes: Set<String>?
    /// Texts per calling code per hour: pumping concentrates on a few premium ranges, while a
    /// real sign-up wave in one country stays well below.
    public var perCountryHourly = 200
    /// Texts per hour in all: the ceiling on what an attack spread over many countries costs.
    public var hourly = 1000

    /// The defaults: every country, 200 texts per country and 1,000 in all per hour.
    public init() {}

    /// The calling code of an E.164 number (`+447700900123` → `44`).
    public static func callingCode(of e164: String) -> String? {
        PhoneNumberInput.callingCode(of: e164.drop { $0 == "+" })
    }

    /// Whether numbers with this calling code may be texted.
    public func allows(callingCode: String) -> Bool {
        allowedCallingCodes?.contains(callingCode) ?? true
    }
}
