/// The Twilio account and sender that ``TwilioSender`` uses.
///
/// ```swift
/// let twilio = TwilioConfiguration(accountSID: "AC…", authToken: token, sender: .phoneNumber("+15005550006"))
/// ```
public struct TwilioConfiguration: Sendable, Equatable {
    /// Who the text comes from.
    public enum Sender: Sendable, Equatable {
        /// A Twilio number in E.164 form (or an alphanumeric sender ID), sent as `From`.
        case phoneNumber(String)
        /// A Messaging Service (`MG…`), sent as `MessagingServiceSid`; Twilio picks the number.
        case messagingService(sid: String)
    }

    /// The account (`AC…`), used in the URL and as the Basic auth user name.
    public var accountSID: String
    /// The account's auth token, the Basic auth password.
    public var authToken: String
    /// Who the text comes from.
    public var sender: Sender
    /// The API's origin, without a trailing path; tests point it at a local stand-in.
    public var baseURL: String
    /// The longest one request may take.
    public var timeout: Duration

    /// Creates a configuration for the real Twilio API unless `baseURL` says otherwise.
    public init(
        accountSID: String,
        authToken: String,
        sender: Sender,
        baseURL: String = "https://api.twilio.com",
        timeout: Duration = .seconds(30)
    ) {
        self.accountSID = accountSID
        self.authToken = authToken
        self.sender = sender
        self.baseURL = baseURL
        self.timeout = timeout
    }

    /// `{base}/2010-04-01/Accounts/{AccountSid}/Messages.json`.
    var messagesURL: String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return "\(base)/2010-04-01/Accounts/\(FormEncoding.percentEncode(accountSID))/Messages.json"
    }
}
