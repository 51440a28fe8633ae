import Foundation
import SesameParsers

/// The message templates shipped with the server: `Resources/messages/email-layout.mustache`
/// and, per language, `Resources/messages/<lang>/<name>.mustache`.
struct ShippedMessageTemplates: Sendable {
    /// The origin of a shipped template, where an override names its scope.
    static let origin = "shipped"

    /// Sources by language, then template name.
    private let sources: [String: [String: String]]
    private let layout: String

    /// The languages shipped.
    var languages: Set<String> { Set(sources.keys) }

    /// The source of `name` in `language`, if shipped.
    func source(_ name: String, language: String) -> String? {
        name == MessageTemplateNames.layout ? layout : sources[language]?[name]
    }

    /// Reads the bundled files. They are parsed where a message first uses them, not here:
    /// parsing all of them was a tenth of the CPU `serve` spent before its first answer
    /// (docs/performance.md), and a test parses and renders every one.
    /// - Throws: when the layout is missing (a packaging bug).
    static func load(from directory: URL = PageRenderer.bundled.appendingPathComponent("messages")) throws
        -> ShippedMessageTemplates
    {
        let layout = try String(
            contentsOf: directory.appendingPathComponent("\(MessageTemplateNames.layoutPartial).mustache"), encoding: .utf8)
        var sources: [String: [String: String]] = [:]
        let entries = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.isDirectoryKey])
        for folder in entries where (try? folder.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
            var templates: [String: String] = [:]
            for name in MessageTemplateNames.all where name != MessageTemplateNames.layout {
                let file = folder.appendingPathComponent("\(name).mustache")
                guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
                templates[name] = text
            }
            sources[folder.lastPathComponent.lowercased()] = templates
        }
        return ShippedMessageTemplates(sources: sources, layout: layout)
    }
}
