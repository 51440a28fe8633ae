public import Foundation
public import Logging
public import SesameCore
import SesameParsers

/// What operators do with message templates (`sesame admin templates …`): see which apply,
/// read one, replace one for every message, a connection or an application in one
/// language, go back to the shipped one, and preview with sample values.
public struct MessageTemplateAdministration: Sendable {
    let templates: MessageTemplates
    let storage: any MessageTemplateRepository
    let clock: any SesameClock
    let audit: OperatorAudit

    /// Creates the service over `storage`; its changes are audited as every operator change is.
    public init(
        storage: any SesameStorage, defaultLanguages: [String: String] = [:], clock: any SesameClock = SystemClock(),
        logger: Logger = Logger(label: "sesame")
    ) throws {
        self.templates = try MessageTemplates(storage: storage, defaultLanguages: defaultLanguages)
        self.storage = storage
        self.clock = clock
        self.audit = OperatorAudit(storage: storage, clock: clock, logger: logger)
    }

    /// One row of `list`: a template in a language, shipped or overridden for a scope.
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var language: String
        /// `shipped`, `all messages`, `connection NAME` or `application CLIENT_ID`.
        public var origin: String
        /// Overrides only.
        public var updatedAt: Date?
    }

    /// Every shipped template in every language, then every override.
    public func list() async throws -> [Entry] {
        let shipped = templates.shipped.languages.sorted().flatMap { language in
            MessageTemplateNames.all.filter { templates.shipped.source($0, language: language) != nil }
                .map { Entry(name: $0, language: language, origin: ShippedMessageTemplates.origin) }
        }
        let overrides = try await storage.messageTemplates().map {
            Entry(name: $0.name, language: $0.language, origin: $0.scope.description, updatedAt: $0.updatedAt)
        }
        return shipped + overrides
    }

    /// The source that applies to `name` in `language` for messages of `scope`, and where it
    /// comes from.
    public func show(_ name: String, language: String, scope: MessageTemplateOverride.Scope) async throws
        -> (source: String, origin: String)
    {
        try Self.check(name: name, language: language)
        let connection = Self.target(of: scope).connection ?? Self.channel(of: name)
        // What a message of this scope would use: its own override, then the wider ones.
        let scopes: [MessageTemplateOverride.Scope] =
            switch scope {
            case .all: [.all]
            case .connection: [scope, .all]
            case .application(let clientID): MessageTemplates.scopes(connection: connection, clientID: clientID)
            }
        guard
            let resolved = templates.resolve(
                name, language: language, scopes: scopes, connection: connection,
                overrides: try await storage.messageTemplates())
        else { throw MessageTemplateError.unknownName(name) }
        let fallback = resolved.language == language ? "" : " (\(resolved.language): none in \(language))"
        return (resolved.source, resolved.origin + fallback)
    }

    /// Replaces `name` in `language` for `scope`.
    /// - Throws: ``MessageTemplateError`` for an unknown name, a bad language code, or a
    ///   syntax error (with its line and column); nothing is stored then.
    public func set(_ name: String, language: String, scope: MessageTemplateOverride.Scope, source: String) async throws {
        try Self.check(name: name, language: language)
        _ = try MessageTemplateSyntax.parse(source, name: name)
        try await storage.setMessageTemplate(
            MessageTemplateOverride(name: name, language: language, scope: scope, body: source, updatedAt: clock.now()))
        await audit.record(.templateSet, detail: "\(name) \(language) for \(scope)")
    }

    /// Removes the override of `name` in `language` for `scope`.
    /// - Returns: false when there was none.
    @discardableResult
    public func reset(_ name: String, language: String, scope: MessageTemplateOverride.Scope) async throws -> Bool {
        try Self.check(name: name, language: language)
        let removed = try await storage.deleteMessageTemplate(name: name, language: language, scope: scope)
        if removed { await audit.record(.templateReset, detail: "\(name) \(language) for \(scope)") }
        return removed
    }

    /// A message of `kind` (`email-code`, `sms-link`, …) as `scope` would send it in
    /// `language`, filled with sample values: each part by name.
    public func render(kind: String, language: String, scope: MessageTemplateOverride.Scope) async throws
        -> [(name: String, text: String)]
    {
        guard MessageTemplateNames.kinds.contains(kind) else { throw MessageTemplateError.unknownName(kind) }
        try Self.check(name: MessageTemplateNames.parts(of: kind)[0], language: language)
        let overrides = try await storage.messageTemplates()
        let content = Self.sample(kind: kind, scope: scope, language: language)
        return try MessageTemplateNames.parts(of: kind).map { name in
            (name, try templates.render(name, content: content, language: language, overrides: overrides))
        }
    }

    /// Sample values for previews.
    static func sample(kind: String, scope: MessageTemplateOverride.Scope, language: String) -> MessageContent {
        let email = kind.hasPrefix("email")
        let link = kind.hasSuffix("link")
        let (connection, clientID) = target(of: scope)
        return MessageContent(
            channel: email ? .email : .sms, recipient: email ? "ana@example.com" : "+14155550123",
            kind: link ? .link : .code, code: link ? nil : "123456",
            link: link ? "https://login.example.com/passwordless/verify_redirect?verification_code=123456" : nil,
            clientID: clientID ?? "sample-client", applicationName: "Example App",
            connection: connection ?? channel(of: kind), lifetimeMinutes: link ? 15 : 3, requestLanguage: language)
    }

    /// The connection a template's messages go through unless a scope names one.
    private static func channel(of name: String) -> String {
        name.hasPrefix("sms") ? "sms" : "email"
    }

    private static func target(of scope: MessageTemplateOverride.Scope) -> (connection: String?, clientID: String?) {
        switch scope {
        case .all: (nil, nil)
        case .connection(let name): (name, nil)
        case .application(let clientID): (nil, clientID)
        }
    }

    /// Template names are the shipped ones; languages are BCP 47-like codes, stored lowercased.
    static func check(name: String, language: String) throws {
        guard MessageTemplateNames.all.contains(name) else { throw MessageTemplateError.unknownName(name) }
        let valid = language.split(separator: "-", omittingEmptySubsequences: false).enumerated().allSatisfy { index, part in
            let allowed = index == 0 ? 2...3 : 2...8
            return allowed.contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }
                && (index > 0 || part.allSatisfy(\.isLetter))
        }
        guard valid else { throw MessageTemplateError.badLanguage(language, name: name) }
    }
}
