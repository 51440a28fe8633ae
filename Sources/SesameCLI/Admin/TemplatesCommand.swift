import ArgumentParser
import Foundation
import SesameCore
import SesameParsers
import SesameServer

/// `sesame admin templates`: the emails and texts that carry codes and links.
struct TemplatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "templates",
        abstract: "Message templates (mustache): list, show, set, reset, and render a preview.",
        discussion: """
            Names: \(MessageTemplateNames.all.joined(separator: ", ")).
            Variables: code, link, application.name, application.logo_url, application.brand_color,
            application.brand_text_color, connection, lifetime_minutes, lifetime_is_one, request_language;
            @@password@@ in a text is the code (Auth0's SMS placeholder).
            """,
        subcommands: [List.self, Show.self, SetTemplate.self, Reset.self, Render.self])

    /// Which template: a language, and whose messages it applies to.
    struct Target: ParsableArguments {
        @Option(help: "The language (en, fr, de, es, ja, pt-BR, it, nl, pl, ar, or any other code).") var language = "en"
        @Option(help: "Only this connection's messages (email, sms).") var connection: String?
        @Option(name: .customLong("client-id"), help: "Only this application's messages.") var clientID: String?

        func validate() throws {
            if connection != nil && clientID != nil { throw ValidationError("give --connection or --client-id, not both") }
        }

        var scope: MessageTemplateOverride.Scope {
            if let clientID { return .application(clientID) }
            return connection.map { .connection($0) } ?? .all
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every shipped template and every override.")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let entries = try await withTemplates(storage) { try await $0.list() }
            if json {
                return try printJSON(
                    entries.map {
                        TemplateEntry(
                            name: $0.name, language: $0.language, origin: $0.origin,
                            updatedAt: $0.updatedAt.map(ISO8601.string))
                    })
            }
            for entry in entries {
                print(
                    "\(entry.name)  \(entry.language)  \(entry.origin)"
                        + (entry.updatedAt.map { "  \(ISO8601.string($0))" } ?? ""))
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Print the template that applies, and where it is from.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The template's name (email-code.html, sms-code.text, …).") var name: String
        @OptionGroup var target: Target

        func run() async throws {
            let (name, language, scope) = (name, target.language, target.scope)
            let shown = try await withTemplates(storage) { try await $0.show(name, language: language, scope: scope) }
            printError("\(name) (\(language)): \(shown.origin)")
            print(shown.source, terminator: shown.source.hasSuffix("\n") ? "" : "\n")
        }
    }

    struct SetTemplate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Replace a template from a file (or standard input); one with a syntax error is refused.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The template's name.") var name: String
        @OptionGroup var target: Target
        @Option(help: "The mustache file (- or none: standard input).") var file: String?

        func run() async throws {
            let source = try readSource(file)
            let (name, language, scope) = (name, target.language, target.scope)
            try await withTemplates(storage) { try await $0.set(name, language: language, scope: scope, source: source) }
            print("template \(name) (\(language)) set for \(scope)")
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset", abstract: "Remove an override: the next one in line applies again.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The template's name.") var name: String
        @OptionGroup var target: Target

        func run() async throws {
            let (name, language, scope) = (name, target.language, target.scope)
            let removed = try await withTemplates(storage) { try await $0.reset(name, language: language, scope: scope) }
            print(
                removed
                    ? "template \(name) (\(language)) reset for \(scope)" : "no override of \(name) (\(language)) for \(scope)")
        }
    }

    struct Render: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "render",
            abstract: "Preview a message (email-code, email-link, sms-code, sms-link) with sample values.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The message: email-code, email-link, sms-code or sms-link.") var kind: String
        @OptionGroup var target: Target
        @Flag(help: "Print the parts as a JSON object.") var json = false

        func run() async throws {
            let (kind, language, scope) = (kind, target.language, target.scope)
            let parts = try await withTemplates(storage) { try await $0.render(kind: kind, language: language, scope: scope) }
            if json { return try printJSON(Dictionary(uniqueKeysWithValues: parts.map { ($0.name, $0.text) })) }
            for part in parts {
                print("==> \(part.name)")
                print(part.text)
            }
        }
    }
}

/// A row of `sesame admin templates list --json`.
private struct TemplateEntry: Encodable {
    var name: String
    var language: String
    var origin: String
    var updatedAt: String?

    enum CodingKeys: String, CodingKey {
        case name, language, origin
        case updatedAt = "updated_at"
    }
}

/// The template's text from `file`, or standard input for none or `-`.
private func readSource(_ file: String?) throws -> String {
    guard let file, file != "-" else {
        return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }
    do {
        return try String(contentsOfFile: file, encoding: .utf8)
    } catch {
        throw CommandFailure("cannot read \(file): \(error.localizedDescription)")
    }
}

/// Runs `body` with the template administration of the configured storage.
private func withTemplates<T: Sendable>(
    _ options: StorageOptions, _ body: @escaping @Sendable (MessageTemplateAdministration) async throws -> T
) async throws -> T {
    try await withConfiguredService(
        options, make: { try MessageTemplateAdministration(storage: $1, defaultLanguages: $0.messageLanguages) }, body)
}
