import Foundation
import Mustache
import SesameParsers

/// The hosted pages' templates and their strings in every language.
///
/// Templates (`*.mustache`) and language files (`locales/xx.json`, one flat object of strings
/// per language) ship as resources; an operator overrides any of them by placing a file of the
/// same name in `<data-dir>/templates/` (a language file there may hold only the strings it
/// changes, or add a language). A string is itself a small template over the page's values,
/// so translators place `{{app}}` or `{{recipient}}` where their grammar wants them; the
/// values are escaped there, and pages insert the finished strings with `{{{t.key}}}`.
struct PageRenderer: Sendable {
    private let library: MustacheLibrary
    private let strings: [String: [String: PageString]]

    /// The language pages fall back to, and whose strings fill any gap in another language.
    static let fallbackLanguage = PageLanguage.fallback

    /// The languages there are strings for.
    var languages: Set<String> { Set(strings.keys) }

    /// The shipped templates and languages, with those in `overrides` (a directory) on top.
    /// - Throws: ``PageTemplateError`` naming the file that does not parse.
    static func load(overrides: String? = nil) throws -> PageRenderer {
        var templates = try templateFiles(in: bundled.appendingPathComponent("templates"))
        var languages = try languageFiles(in: bundled.appendingPathComponent("locales"))
        if let overrides {
            let directory = URL(fileURLWithPath: overrides)
            templates.merge(try templateFiles(in: directory)) { _, new in new }
            for (code, strings) in try languageFiles(in: directory.appendingPathComponent("locales")) {
                languages[code, default: [:]].merge(strings) { _, new in new }
            }
        }
        return try PageRenderer(templates: templates, languages: languages)
    }

    private init(templates: [String: String], languages: [String: [String: String]]) throws {
        var library = MustacheLibrary()
        for (name, text) in templates {
            do {
                library.register(try MustacheTemplate(string: text), named: name)
            } catch {
                throw PageTemplateError(file: "\(name).mustache", reason: "\(error)")
            }
        }
        let base = languages[Self.fallbackLanguage] ?? [:]
        var strings: [String: [String: PageString]] = [:]
        for (code, own) in languages {
            var parsed: [String: PageString] = [:]
            for (key, text) in base.merging(own, uniquingKeysWith: { _, own in own }) {
                do {
                    parsed[key] = try PageString(text)
                } catch {
                    throw PageTemplateError(file: "locales/\(code).json", reason: "\(key): \(error)")
                }
            }
            strings[code] = parsed
        }
        self.library = library
        self.strings = strings
    }

    /// Renders `template` in `language` over `values`; the strings are under `t`.
    func render(_ template: String, language: String, values: [String: Any]) -> String {
        let table = strings[language] ?? strings[Self.fallbackLanguage] ?? [:]
        var context = values
        context["lang"] = language
        context["dir"] = PageLanguage.direction(of: language)
        context["t"] = PageStrings(table: table, values: values)
        return library.render(context, withTemplate: template) ?? ""
    }

    /// One string of `language`, finished over `values` (for text outside templates).
    func text(_ key: String, language: String, values: [String: Any] = [:]) -> String {
        let table = strings[language] ?? strings[Self.fallbackLanguage] ?? [:]
        return table[key]?.render(values) ?? key
    }

    /// The resources shipped with the server: the copied `Resources` folder inside the bundle
    /// (which Foundation reports as the bundle itself on some platforms, its `Resources` on others).
    static var bundled: URL {
        let candidates = [Bundle.module.bundleURL, Bundle.module.resourceURL].compactMap { $0 }
            .map { $0.appendingPathComponent("Resources") }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("templates").path) }
            ?? Bundle.module.bundleURL
    }

    private static func templateFiles(in directory: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for file in try files(in: directory, extension: "mustache") {
            result[file.deletingPathExtension().lastPathComponent] = try String(contentsOf: file, encoding: .utf8)
        }
        return result
    }

    private static func languageFiles(in directory: URL) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for file in try files(in: directory, extension: "json") {
            let code = file.deletingPathExtension().lastPathComponent.lowercased()
            guard let strings = try? JSONDecoder().decode([String: String].self, from: Data(contentsOf: file)) else {
                throw PageTemplateError(file: "locales/\(file.lastPathComponent)", reason: "not a JSON object of strings")
            }
            result[code] = strings
        }
        return result
    }

    private static func files(in directory: URL, extension: String) throws -> [URL] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == `extension` }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}

/// A template or language file that cannot be used; `serve` stops and names it.
struct PageTemplateError: Error, CustomStringConvertible {
    let file: String
    let reason: String

    var description: String { "hosted page template \(file) cannot be used: \(reason)" }
}

/// One string of a language file: most have no tag and are used as they are; only those
/// with one are parsed (parsing all 304 was a sixth of what loading the pages cost at start,
/// docs/performance.md).
private enum PageString: Sendable {
    case text(String)
    case template(MustacheTemplate)

    /// - Throws: the parser's error, for a string with a tag that does not parse.
    init(_ text: String) throws {
        // Every tag, a change of delimiters included, opens with the default `{{`.
        self = text.contains("{{") ? .template(try MustacheTemplate(string: text)) : .text(text)
    }

    func render(_ values: [String: Any]) -> String {
        switch self {
        case .text(let text): text
        case .template(let template): template.render(values)
        }
    }
}

/// A language's strings as a page sees them under `t`: each finished over the page's values
/// only when the page uses it, not the whole table on every render.
private struct PageStrings: MustacheParent {
    let table: [String: PageString]
    let values: [String: Any]

    func child(named name: String) -> Any? {
        table[name]?.render(values)
    }
}
