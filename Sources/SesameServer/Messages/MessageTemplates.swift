import Foundation
import Mustache
public import SesameCore
import Synchronization

/// Chooses and fills message templates. For each part of a message the template is an
/// operator's override for the application, else for the connection, else for every
/// message, else the shipped one; in the message's language, else the connection's default
/// language, else English.
public struct MessageTemplates: Sendable {
    let shipped: ShippedMessageTemplates
    let storage: any MessageTemplateRepository
    /// The default language of each connection's messages (`connections.NAME.language`).
    let defaultLanguages: [String: String]
    /// Templates already parsed: parsing the layout for every message was a quarter of a
    /// login's server time (docs/performance.md).
    private let parsed = ParsedTemplates()

    /// The language every chain ends in.
    static let fallbackLanguage = "en"

    /// Loads the shipped templates; overrides are read from `storage` for every message.
    public init(storage: any MessageTemplateRepository, defaultLanguages: [String: String] = [:]) throws {
        self.shipped = try ShippedMessageTemplates.load()
        self.storage = storage
        self.defaultLanguages = defaultLanguages
    }

    /// One template as it applies: its source and where it came from.
    struct Resolved {
        var source: String
        /// The language of the source found (it may be a fallback's).
        var language: String
        /// `shipped`, or the override's scope.
        var origin: String
    }

    /// The language of a message: `x-request-language`, then `Accept-Language`, then the
    /// connection's default, among the languages there are templates for.
    func language(for content: MessageContent, overrides: [MessageTemplateOverride]) -> String {
        let available = shipped.languages.union(overrides.map(\.language))
        let wanted =
            PageLanguage.ranked(content.requestLanguage ?? "") + PageLanguage.ranked(content.acceptLanguage ?? "")
            + [defaultLanguage(of: content.connection)]
        return PageLanguage.match(wanted, available: available) ?? Self.fallbackLanguage
    }

    func defaultLanguage(of connection: String) -> String {
        defaultLanguages[connection] ?? Self.fallbackLanguage
    }

    /// Whose overrides apply to a message of `connection` asked for by `clientID`, narrowest first.
    static func scopes(connection: String, clientID: String?) -> [MessageTemplateOverride.Scope] {
        (clientID.map { [.application($0)] } ?? []) + [.connection(connection), .all]
    }

    /// The template `name` in `language` from the first of `scopes` that overrides it, else
    /// the shipped one; then the same in `connection`'s default language, then in English.
    func resolve(
        _ name: String, language: String, scopes: [MessageTemplateOverride.Scope], connection: String,
        overrides: [MessageTemplateOverride]
    ) -> Resolved? {
        var languages: [String] = []
        for candidate in [language, defaultLanguage(of: connection), Self.fallbackLanguage]
        where !languages.contains(candidate) {
            languages.append(candidate)
        }
        for language in languages {
            for scope in scopes {
                if let found = overrides.first(where: { $0.name == name && $0.language == language && $0.scope == scope }) {
                    return Resolved(source: found.body, language: language, origin: scope.description)
                }
            }
            if let source = shipped.source(name, language: language) {
                return Resolved(source: source, language: language, origin: "shipped")
            }
        }
        return nil
    }

    /// Renders template `name` for `content` in `language`, with the layout it may inherit.
    /// - Throws: ``MessageTemplateError`` when no template exists or one does not parse.
    func render(
        _ name: String, content: MessageContent, language: String, overrides: [MessageTemplateOverride]
    ) throws -> String {
        func find(_ name: String) throws -> MustacheTemplate {
            let scopes = Self.scopes(connection: content.connection, clientID: content.clientID)
            guard
                let resolved = resolve(
                    name, language: language, scopes: scopes, connection: content.connection, overrides: overrides)
            else { throw MessageTemplateError.unknownName(name) }
            return try parsed.template(resolved.source, name: name)
        }
        var library = MustacheLibrary()
        if !MessageTemplateNames.isText(name) {
            library.register(try find(MessageTemplateNames.layout), named: MessageTemplateNames.layoutPartial)
        }
        return try find(name).render(Self.values(content, language: language), library: library)
    }

    /// What templates may use: `code`, `link`, `application.*`, `connection`,
    /// `lifetime_minutes` (with `lifetime_is_one` for grammar) and `request_language`.
    static func values(_ content: MessageContent, language: String) -> [String: Any] {
        let brand = content.applicationBrandColor.flatMap(BrandColor.init(hex:)) ?? .defaultLight
        var application: [String: Any] = [
            "name": content.applicationName, "brand_color": brand.hex, "brand_text_color": brand.textColor.hex,
        ]
        application["logo_url"] = content.applicationLogoURL
        var values: [String: Any] = [
            "application": application, "connection": content.connection, "lifetime_minutes": content.lifetimeMinutes,
            "lifetime_is_one": content.lifetimeMinutes == 1, "request_language": language,
        ]
        values["code"] = content.code
        values["link"] = content.link
        return values
    }
}

/// Parsed templates by name and source, so an operator's new override is parsed once and an
/// unchanged one never again.
final class ParsedTemplates: Sendable {
    private let templates = Mutex<[String: MustacheTemplate]>([:])
    /// Overrides come and go; past this many sources the cache starts afresh.
    private let limit = 512

    func template(_ source: String, name: String) throws -> MustacheTemplate {
        let key = name + "\u{0}" + source
        if let template = templates.withLock({ $0[key] }) { return template }
        let template = try MessageTemplateSyntax.parse(source, name: name)
        templates.withLock { templates in
            if templates.count >= limit { templates.removeAll() }
            templates[key] = template
        }
        return template
    }
}
