import Foundation
import SesameCore
import SesameParsers
import SesameServer
import SesameStorageSQL
import Testing

/// Message templates: the language a message is written in, which template applies, how
/// values are escaped, and what operators may store.
@Suite("Message templates: languages, overrides, escaping and operators' changes")
struct MessageTemplateTests {
    static func content(
        _ kind: String = "email-code", app: String = "Example", request: String? = nil, accept: String? = nil,
        connection: String? = nil, clientID: String = "app1"
    ) -> MessageContent {
        let email = kind.hasPrefix("email")
        let link = kind.hasSuffix("link")
        return MessageContent(
            channel: email ? .email : .sms, recipient: email ? "ana@example.com" : "+14155550123", kind: link ? .link : .code,
            code: link ? nil : "482913", link: link ? "https://login.example.com/passwordless/verify_redirect?a=1&b=2" : nil,
            clientID: clientID, applicationName: app, connection: connection ?? (email ? "email" : "sms"), lifetimeMinutes: 3,
            requestLanguage: request, acceptLanguage: accept)
    }

    /// Runs `body` with a composer and an administration over one fresh database.
    static func withTemplates(
        defaultLanguages: [String: String] = [:],
        _ body: (TemplateMessageComposer, MessageTemplateAdministration) async throws -> Void
    ) async throws {
        let storage = try await SQLStorage.sqlite(path: nil)
        do {
            let templates = try MessageTemplates(storage: storage, defaultLanguages: defaultLanguages)
            let administration = try MessageTemplateAdministration(storage: storage, defaultLanguages: defaultLanguages)
            try await body(TemplateMessageComposer(templates: templates), administration)
        } catch {
            try? await storage.shutdown()
            throw error
        }
        try await storage.shutdown()
    }

    /// The languages the hosted page speaks, each with its own messages (`pt-BR` is read as `pt-br`).
    static let shippedLanguages: Set = ["ar", "de", "en", "es", "fr", "it", "ja", "nl", "pl", "pt-br"]

    @Test("every language the hosted page speaks has every message template, and none is the English one")
    func everyLanguageHasEveryTemplate() async throws {
        // The hosted page's language files, in the source tree next to the messages.
        let locales = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/SesameServer/Resources/locales").standardized
        let pageLanguages = Set(
            try FileManager.default.contentsOfDirectory(at: locales, includingPropertiesForKeys: nil)
                .map { $0.deletingPathExtension().lastPathComponent.lowercased() })
        #expect(pageLanguages == Self.shippedLanguages)
        try await Self.withTemplates { _, admin in
            let shipped = try await admin.list()
            for language in Self.shippedLanguages.sorted() {
                let names = Set(shipped.filter { $0.language == language }.map(\.name))
                #expect(
                    names == Set(MessageTemplateNames.all),
                    "\(language) lacks \(Set(MessageTemplateNames.all).subtracting(names))")
                guard language != "en" else { continue }
                for name in MessageTemplateNames.all where name != MessageTemplateNames.layout {
                    let own = try await admin.show(name, language: language, scope: .all).source
                    let english = try await admin.show(name, language: "en", scope: .all).source
                    #expect(own != english, "\(name) in \(language) is the English one")
                }
            }
        }
    }

    @Test("an Arabic email reads right to left; the others left to right")
    func arabicReadsRightToLeft() async throws {
        try await Self.withTemplates { composer, _ in
            for kind in ["email-code", "email-link", "email-notice"] {
                let arabic = try #require(try await composer.compose(Self.content(kind, request: "ar")).html)
                #expect(arabic.contains("<html lang=\"ar\" dir=\"rtl\">") && arabic.contains("<p dir=\"rtl\""), "\(kind)")
                let french = try #require(try await composer.compose(Self.content(kind, request: "fr")).html)
                #expect(french.contains("<html lang=\"fr\" dir=\"ltr\">"), "\(kind)")
            }
        }
    }

    @Test("language: x-request-language, then Accept-Language by quality, then the connection's default, then English")
    func languageChoice() async throws {
        try await Self.withTemplates(defaultLanguages: ["email": "de"]) { composer, _ async throws in
            #expect(try await Self.language(composer, Self.content(request: "fr", accept: "es")) == "fr")
            #expect(try await Self.language(composer, Self.content(request: "fr-CA")) == "fr", "a region falls back")
            #expect(try await Self.language(composer, Self.content(accept: "sv;q=1, es;q=0.8, fr;q=0.5")) == "es")
            #expect(
                try await Self.language(composer, Self.content(request: "xx", accept: "yy")) == "de", "the connection's default")
            #expect(try await Self.language(composer, Self.content(accept: "sv", connection: "other")) == "en", "then English")
        }
    }

    /// The `lang` of the HTML part of the message composed for `content`.
    static func language(_ composer: TemplateMessageComposer, _ content: MessageContent) async throws -> String? {
        let html = try await composer.compose(content).html ?? ""
        return html.range(of: #"lang="[a-z-]+""#, options: .regularExpression).map {
            String(html[$0].dropFirst(6).dropLast())
        }
    }

    @Test("shipped email: a one-line subject with the code, text and HTML parts with the same code, no scripts or remote images")
    func shippedEmail() async throws {
        try await Self.withTemplates { composer, _ in
            for language in Self.shippedLanguages.sorted() {
                for kind in ["email-code", "email-link"] {
                    let message = try await composer.compose(Self.content(kind, request: language))
                    let secret =
                        kind == "email-code" ? "482913" : "https://login.example.com/passwordless/verify_redirect?a=1&b=2"
                    let subject = try #require(message.subject)
                    let html = try #require(message.html)
                    #expect(!subject.contains("\n") && !subject.isEmpty)
                    #expect(message.body.contains(secret), "\(language) \(kind) text")
                    #expect(html.contains(secret.replacingOccurrences(of: "&", with: "&amp;")), "\(language) \(kind) HTML")
                    #expect(!html.lowercased().contains("<script") && !html.contains("<img"), "no logo was set")
                    #expect(html.contains("prefers-color-scheme: dark"), "readable in dark mode")
                    if kind == "email-code" { #expect(subject.contains("482913"), "the code shows in notifications") }
                }
                for kind in ["sms-code", "sms-link"] {
                    let message = try await composer.compose(Self.content(kind, request: language))
                    #expect(message.html == nil && message.subject == nil)
                    #expect(message.body.contains(kind == "sms-code" ? "482913" : "https://login.example.com/"))
                }
            }
        }
    }

    /// Attack: an application name (set by whoever registered the app) with markup must not
    /// inject HTML into the email; text parts must not show HTML entities either.
    @Test("escaping: values are HTML-escaped in the HTML part only")
    func escaping() async throws {
        try await Self.withTemplates { composer, _ in
            let message = try await composer.compose(Self.content(app: "Tom & <b>Jerry</b>"))
            #expect(message.body.contains("Tom & <b>Jerry</b>"))
            #expect(message.subject?.contains("Tom & <b>Jerry</b>") == true)
            #expect(message.html?.contains("Tom &amp; &lt;b&gt;Jerry&lt;/b&gt;") == true)
            #expect(message.html?.contains("<b>Jerry") == false)
        }
    }

    @Test("overrides: the application's beats the connection's beats every message's beats the shipped one")
    func overridePrecedence() async throws {
        try await Self.withTemplates { composer, admin in
            let name = "sms-code.text"
            try await admin.set(name, language: "en", scope: .all, source: "all {{code}}")
            #expect(try await composer.compose(Self.content("sms-code")).body == "all 482913")
            try await admin.set(name, language: "en", scope: .connection("sms"), source: "connection {{code}}")
            #expect(try await composer.compose(Self.content("sms-code")).body == "connection 482913")
            try await admin.set(name, language: "en", scope: .application("app1"), source: "app {{code}}")
            #expect(try await composer.compose(Self.content("sms-code")).body == "app 482913")
            #expect(try await composer.compose(Self.content("sms-code", clientID: "other")).body == "connection 482913")
            try await admin.reset(name, language: "en", scope: .application("app1"))
            #expect(try await composer.compose(Self.content("sms-code")).body == "connection 482913")
            #expect(try await composer.compose(Self.content("sms-code", request: "fr")).body.contains("482913"))
        }
    }

    @Test("a language only an operator added: its templates are used, the rest fall back to the default")
    func operatorLanguage() async throws {
        try await Self.withTemplates { composer, admin in
            try await admin.set("sms-code.text", language: "sv", scope: .all, source: "Din kod är @@password@@")
            #expect(try await composer.compose(Self.content("sms-code", accept: "sv-FI")).body == "Din kod är 482913")
            let email = try await composer.compose(Self.content(accept: "sv"))
            #expect(email.html?.contains(#"lang="sv""#) == true, "request_language is the language chosen")
            #expect(email.body.contains("482913"), "the shipped English text stands in")
        }
    }

    @Test("set: a syntax error is refused with its line and column, and nothing is stored; names and languages are checked")
    func setRefusals() async throws {
        try await Self.withTemplates { _, admin in
            do {
                try await admin.set("email-code.subject", language: "fr", scope: .all, source: "Bonjour\n  {{#code}} sans fin")
                Issue.record("a section that is never closed was accepted")
            } catch let error as MessageTemplateError {
                #expect(error.position?.line == 2, "\(error)")
                #expect(error.description.contains("line 2, column"))
            }
            do {
                try await admin.set("sms-code.text", language: "en", scope: .all, source: "{{code}")
                Issue.record("an unfinished tag was accepted")
            } catch let error as MessageTemplateError {
                #expect(error.position?.line == 1 && (error.position?.column ?? 99) <= 8, "\(error)")
            }
            await #expect(throws: MessageTemplateError.self) {
                try await admin.set("email-code.body", language: "en", scope: .all, source: "x")
            }
            await #expect(throws: MessageTemplateError.self) {
                try await admin.set("sms-code.text", language: "../../etc", scope: .all, source: "x")
            }
            #expect(try await admin.list().allSatisfy { $0.origin == "shipped" }, "nothing was stored")
        }
    }

    @Test("every shipped template parses and renders in every shipped language (start-up no longer parses them)")
    func everyShippedTemplateRenders() async throws {
        try await Self.withTemplates { _, admin in
            let languages = Set(try await admin.list().map(\.language))
            #expect(languages == Self.shippedLanguages)
            for language in languages.sorted() {
                for kind in MessageTemplateNames.kinds {
                    let parts = try await admin.render(kind: kind, language: language, scope: .all)
                    #expect(parts.map(\.name) == MessageTemplateNames.parts(of: kind), "\(kind) in \(language)")
                    #expect(parts.allSatisfy { !$0.text.isEmpty }, "\(kind) in \(language)")
                    // The notice (someone is guessing the address's codes) carries no secret.
                    guard !kind.hasSuffix("notice") else { continue }
                    let secret = kind.hasSuffix("link") ? "verification_code=123456" : "123456"
                    #expect(parts.first { $0.name.hasSuffix(".text") }?.text.contains(secret) == true, "\(kind) in \(language)")
                }
            }
        }
    }

    @Test("list, show and render: every shipped template in ten languages, the one that applies, and a preview")
    func administration() async throws {
        try await Self.withTemplates { _, admin in
            let shipped = try await admin.list()
            #expect(shipped.count == Self.shippedLanguages.count * MessageTemplateNames.all.count)
            try await admin.set("email-code.subject", language: "de", scope: .connection("email"), source: "Code {{code}}")
            let shown = try await admin.show("email-code.subject", language: "de", scope: .connection("email"))
            #expect(shown.source == "Code {{code}}" && shown.origin == "connection email")
            #expect(try await admin.show("email-code.subject", language: "de", scope: .all).origin == "shipped")
            let preview = try await admin.render(kind: "email-code", language: "de", scope: .connection("email"))
            #expect(preview.map(\.name) == ["email-code.subject", "email-code.text", "email-code.html"])
            #expect(preview[0].text == "Code 123456")
            #expect(try await admin.list().count == shipped.count + 1)
        }
    }
}
