import Foundation
import Mustache
public import SesameCore
import SesameParsers
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
    private let skeletons = MessageSkeletons()

    /// The language every chain ends in.
    static let fallbackLanguage = PageLanguage.fallback

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

        /// Whether the source is the one shipped, which never changes while the server runs.
        var isShipped: Bool { origin == ShippedMessageTemplates.origin }
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
                return Resolved(source: source, language: language, origin: ShippedMessageTemplates.origin)
            }
        }
        return nil
    }

    /// Renders template `name` for `content` in `language`, with the layout it may inherit.
    /// A part is rendered once per application, connection and language, and its code or link
    /// put into the gaps after (``MessageSkeleton``).
    /// - Throws: ``MessageTemplateError`` when no template exists or one does not parse.
    func render(
        _ name: String, content: MessageContent, language: String, overrides: [MessageTemplateOverride]
    ) throws -> String {
        let scopes = Self.scopes(connection: content.connection, clientID: content.clientID)
        func find(_ name: String) throws -> ParsedTemplates.Entry {
            guard
                let resolved = resolve(
                    name, language: language, scopes: scopes, connection: content.connection, overrides: overrides)
            else { throw MessageTemplateError.unknownName(name) }
            return try parsed.template(resolved, name: name)
        }
        let template = try find(name)
        let layout = MessageTemplateNames.isText(name) ? nil : try find(MessageTemplateNames.layout)
        func draw(_ content: MessageContent) -> String {
            var library = MustacheLibrary()
            if let layout { library.register(layout.template, named: MessageTemplateNames.layoutPartial) }
            return template.template.render(Self.values(content, language: language), library: library)
        }
        guard
            let key = MessageSkeletons.Key(content, template: template.serial, layout: layout?.serial, language: language),
            let secret = content.code ?? content.link
        else { return draw(content) }
        let skeleton = skeletons.skeleton(for: key) {
            MessageSkeleton.learn { standIn in
                var sample = content
                if content.code != nil { sample.code = standIn } else { sample.link = standIn }
                return draw(sample)
            }
        }
        return skeleton?.filled(with: secret) ?? draw(content)
    }

    /// What templates may use: `code`, `link`, `application.*`, `connection`,
    /// `lifetime_minutes` (with `lifetime_is_one` for grammar) and `request_language`. Every
    /// input here but the secret must be part of ``MessageSkeletons/Key``, or a rendered part
    /// would be reused for a message it does not fit.
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
    /// A parsed template and its serial number, which no other name and source ever gets.
    struct Entry: Sendable {
        let template: MustacheTemplate
        let serial: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var serials = 0
    }

    private let state = Mutex(State())
    /// Overrides come and go; past this many sources the cache starts afresh.
    private let limit = 512

    /// The parsed template `resolved` for `name`. A shipped template is known by its name and
    /// language, so the layout's five kilobytes are not hashed and compared for every message.
    func template(_ resolved: MessageTemplates.Resolved, name: String) throws -> Entry {
        let source = resolved.source
        let key = resolved.isShipped ? "shipped\u{0}\(name)\u{0}\(resolved.language)" : name + "\u{0}" + source
        if let entry = state.withLock({ $0.entries[key] }) { return entry }
        let template = try MessageTemplateSyntax.parse(source, name: name)
        return state.withLock { state in
            if let entry = state.entries[key] { return entry }
            if state.entries.count >= limit { state.entries.removeAll() }
            state.serials += 1
            let entry = Entry(template: template, serial: state.serials)
            state.entries[key] = entry
            return entry
        }
    }
}
