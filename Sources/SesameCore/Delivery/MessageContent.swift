public import Foundation
public import SesameAPI

/// What a passwordless message must say, before a template gives it words: the secret and
/// the facts templates may show. It is what the durable outbox keeps (sealed) until the
/// delivery worker composes and sends the message, so a template fixed while a message waits
/// applies to it.
public struct MessageContent: Codable, Sendable, Equatable {
    /// Whether the message carries a code to type or a link to open, or is a notice with
    /// neither (a warning that someone is guessing the address's codes).
    public enum Kind: String, Codable, Sendable { case code, link, notice }

    public var channel: OutgoingMessage.Channel
    /// An email address or an E.164 phone number.
    public var recipient: String
    public var kind: Kind
    /// The one-time code (code messages).
    public var code: String?
    /// The sign-in link (link messages: a web magic link or a native-app link).
    public var link: String?
    /// The application that asked, for per-application templates.
    public var clientID: String
    public var applicationName: String
    public var applicationLogoURL: String?
    /// The application's brand colour (`#rrggbb`), for the HTML email's button.
    public var applicationBrandColor: String?
    /// The connection's name (`email`, `sms`, …), for per-connection templates.
    public var connection: String
    /// How long the code or link works, in whole minutes (at least 1).
    public var lifetimeMinutes: Int
    /// The `x-request-language` header of the start request, as sent.
    public var requestLanguage: String?
    /// The `Accept-Language` header of the start request, as sent.
    public var acceptLanguage: String?

    /// Creates message content.
    public init(
        channel: OutgoingMessage.Channel, recipient: String, kind: Kind, code: String?, link: String?, clientID: String,
        applicationName: String, applicationLogoURL: String? = nil, applicationBrandColor: String? = nil,
        connection: String, lifetimeMinutes: Int,
        requestLanguage: String? = nil, acceptLanguage: String? = nil
    ) {
        self.channel = channel
        self.recipient = recipient
        self.kind = kind
        self.code = code
        self.link = link
        self.clientID = clientID
        self.applicationName = applicationName
        self.applicationLogoURL = applicationLogoURL
        self.applicationBrandColor = applicationBrandColor
        self.connection = connection
        self.lifetimeMinutes = lifetimeMinutes
        self.requestLanguage = requestLanguage
        self.acceptLanguage = acceptLanguage
    }
}

extension MessageContent: DirectJSONEncodable {
    /// The members `JSONEncoder` writes, without it: every code and link queues one.
    public func directJSON() -> [UInt8]? {
        var json = JSONObjectWriter()
        json.add("channel", channel.rawValue)
        json.add("recipient", recipient)
        json.add("kind", kind.rawValue)
        json.add("code", code)
        json.add("link", link)
        json.add("clientID", clientID)
        json.add("applicationName", applicationName)
        json.add("applicationLogoURL", applicationLogoURL)
        json.add("applicationBrandColor", applicationBrandColor)
        json.add("connection", connection)
        json.add("lifetimeMinutes", Int64(lifetimeMinutes))
        json.add("requestLanguage", requestLanguage)
        json.add("acceptLanguage", acceptLanguage)
        return json.finish()
    }
}

extension MessageContent {
    /// Reads what ``directJSON()`` wrote: through ``JSONObjectReader`` when it can, and
    /// through `JSONDecoder` (with its errors) when the text is anything else, as a message
    /// queued by an older version could be.
    public static func decode(from payload: Data) throws -> MessageContent {
        if let members = JSONObjectReader.members(payload), let content = Self(members) {
            return content
        }
        return try JSONDecoder().decode(MessageContent.self, from: payload)
    }

    /// Nil when a member is missing or of another type: `JSONDecoder` then says which.
    private init?(_ members: [String: JSONObjectReader.Value]) {
        func string(_ key: String) -> String? {
            if case .string(let value)? = members[key] { value } else { nil }
        }
        guard let channel = string("channel").flatMap(OutgoingMessage.Channel.init(rawValue:)),
            let kind = string("kind").flatMap(Kind.init(rawValue:)),
            let recipient = string("recipient"), let clientID = string("clientID"),
            let applicationName = string("applicationName"), let connection = string("connection"),
            case .number(let minutes)? = members["lifetimeMinutes"], minutes.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let lifetimeMinutes = Int(minutes),
            let code = members.optionalString("code"), let link = members.optionalString("link"),
            let logo = members.optionalString("applicationLogoURL"),
            let color = members.optionalString("applicationBrandColor"),
            let requestLanguage = members.optionalString("requestLanguage"),
            let acceptLanguage = members.optionalString("acceptLanguage")
        else { return nil }
        self.init(
            channel: channel, recipient: recipient, kind: kind, code: code, link: link, clientID: clientID,
            applicationName: applicationName, applicationLogoURL: logo, applicationBrandColor: color,
            connection: connection, lifetimeMinutes: lifetimeMinutes, requestLanguage: requestLanguage,
            acceptLanguage: acceptLanguage)
    }
}

/// Turns ``MessageContent`` into a message ready to send: picks the language and the
/// template (shipped, or an operator's override) and fills it.
public protocol MessageComposer: Sendable {
    /// The message for `content`. Throws when no template can be filled (the delivery is
    /// then retried, so a template fixed in time still goes out).
    func compose(_ content: MessageContent) async throws -> OutgoingMessage
}
