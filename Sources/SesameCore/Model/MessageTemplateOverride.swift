public import Foundation

/// An operator's replacement for one shipped message template, in one language, for every
/// message, one connection's, or one application's.
public struct MessageTemplateOverride: Sendable, Equatable {
    /// Whose messages an override applies to; the narrowest that exists wins.
    public enum Scope: Sendable, Hashable, CustomStringConvertible {
        /// Every message.
        case all
        /// Messages of one connection (`email`, `sms`, …).
        case connection(String)
        /// Messages one application asked for, by client id.
        case application(String)

        /// The stored form: empty, `connection:NAME` or `client:ID`.
        public var key: String {
            switch self {
            case .all: ""
            case .connection(let name): "connection:\(name)"
            case .application(let clientID): "client:\(clientID)"
            }
        }

        /// The scope of a stored key; nil for one this version does not know.
        public init?(key: String) {
            if key.isEmpty {
                self = .all
            } else if key.hasPrefix("connection:") {
                self = .connection(String(key.dropFirst("connection:".count)))
            } else if key.hasPrefix("client:") {
                self = .application(String(key.dropFirst("client:".count)))
            } else {
                return nil
            }
        }

        public var description: String {
            switch self {
            case .all: "all messages"
            case .connection(let name): "connection \(name)"
            case .application(let clientID): "application \(clientID)"
            }
        }
    }

    /// The template's name: `email-code.subject`, `email-code.html`, `sms-link.text`, ….
    public var name: String
    /// A language code (`en`, `fr`, `pt-br`).
    public var language: String
    public var scope: Scope
    /// The mustache source.
    public var body: String
    public var updatedAt: Date

    /// Creates an override.
    public init(name: String, language: String, scope: Scope, body: String, updatedAt: Date) {
        (self.name, self.language, self.scope) = (name, language, scope)
        (self.body, self.updatedAt) = (body, updatedAt)
    }
}
