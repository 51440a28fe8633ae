import Foundation
import Mustache
import SesameCore
import SesameParsers
import Testing

@testable import SesameServer

/// Message parts are rendered once and their code or link put in afterwards: the result must
/// be exactly what rendering each message in full gives, and a template that does more with
/// the secret than show it must not be cached.
@Suite("Message skeletons: a part rendered once, the secret put in after, byte for byte")
struct MessageSkeletonTests {
    static let secrets = [
        "482913", "0000000001",
        "https://login.example.com/passwordless/verify_redirect?a=1&b=2&state=<x>&q=\"it's\"",
        "https://login.example.com/verify?email=zoë%40example.com&code=é",
    ]

    /// Renders `source` (as template `name`, with the shipped layout) for `content` in full.
    static func render(_ source: String, name: String, content: MessageContent, layout: String?) throws -> String {
        var library = MustacheLibrary()
        if let layout {
            library.register(
                try MessageTemplateSyntax.parse(layout, name: MessageTemplateNames.layout),
                named: MessageTemplateNames.layoutPartial)
        }
        return try MessageTemplateSyntax.parse(source, name: name)
            .render(MessageTemplates.values(content, language: "en"), library: library)
    }

    static func content(kind: MessageContent.Kind, secret: String) -> MessageContent {
        MessageContent(
            channel: .email, recipient: "ana@example.com", kind: kind, code: kind == .code ? secret : nil,
            link: kind == .link ? secret : nil, clientID: "app1", applicationName: "Tom & \"Jerry's\" <b>", connection: "email",
            lifetimeMinutes: 3)
    }

    /// The skeleton learnt for `source`, filled with each secret, against the full rendering.
    static func expectSameAsFull(_ source: String, name: String, kind: MessageContent.Kind, layout: String? = nil) throws {
        let skeleton = try MessageSkeleton.learn { standIn in
            try render(source, name: name, content: content(kind: kind, secret: standIn), layout: layout)
        }
        let learnt = try #require(skeleton, "\(name) is cacheable")
        for secret in secrets {
            let full = try render(source, name: name, content: content(kind: kind, secret: secret), layout: layout)
            #expect(Array(learnt.filled(with: secret).utf8) == Array(full.utf8), "\(name) with \(secret)")
        }
    }

    @Test("every shipped template in every shipped language: the filled skeleton is the full rendering, byte for byte")
    func shippedTemplates() throws {
        let shipped = try ShippedMessageTemplates.load()
        let layout = try #require(shipped.source(MessageTemplateNames.layout, language: "en"))
        var checked = 0
        for language in shipped.languages {
            for name in MessageTemplateNames.all where name != MessageTemplateNames.layout {
                guard let source = shipped.source(name, language: language) else { continue }
                let kind: MessageContent.Kind = name.contains("-link.") ? .link : .code
                try Self.expectSameAsFull(
                    source, name: name, kind: kind, layout: MessageTemplateNames.isText(name) ? nil : layout)
                checked += 1
            }
        }
        #expect(checked >= 32, "eight templates in each of four languages")
    }

    @Test("the secret escaped in HTML and as it is, in sections, in the legacy placeholder and not at all")
    func gaps() throws {
        try Self.expectSameAsFull(
            "<a href=\"{{link}}\">{{{link}}}</a>{{#link}} [{{.}}]{{/link}}{{^link}}none{{/link}}", name: "email-link.html",
            kind: .link)
        try Self.expectSameAsFull("Code: @@password@@ ({{code}})", name: "sms-code.text", kind: .code)
        try Self.expectSameAsFull("No secret here, {{application.name}}.", name: "email-code.subject", kind: .code)
        let skeleton = try #require(
            try MessageSkeleton.learn { standIn in
                try Self.render(
                    "{{link}}|{{{link}}}", name: "email-link.html", content: Self.content(kind: .link, secret: standIn),
                    layout: nil)
            })
        #expect(skeleton.escaped == [true, false])
    }

    /// A template that transforms the secret, or holds a stand-in as text, would be filled
    /// wrongly from a skeleton; such parts must be rendered in full every time.
    @Test("a template that transforms the secret or holds a stand-in is not cached")
    func notCached() throws {
        let (first, _) = MessageSkeleton.standIns
        let sources = [
            "{{uppercased(code)}}", "{{lowercased(link)}}", "{{capitalized(link)}}", "{{reversed(code)}}",
            "{{code}} and \(first)", "{{#code}}{{reversed(.)}}{{/code}}",
        ]
        for source in sources {
            let kind: MessageContent.Kind = source.contains("link") ? .link : .code
            let skeleton = try MessageSkeleton.learn { standIn in
                try Self.render(source, name: "sms-code.text", content: Self.content(kind: kind, secret: standIn), layout: nil)
            }
            #expect(skeleton == nil, "\(source)")
        }
    }

    @Test("HTML escaping matches swift-mustache's for every character it changes")
    func escapingMatchesMustache() throws {
        let text = "a<b>c&d\"e'f — ünï &\u{301}"
        let rendered = try MustacheTemplate(string: "{{value}}").render(["value": text])
        #expect(HTMLText.escaped(text) == rendered)
    }

    @Test("the cache is keyed by everything a template sees: another application's name is another message")
    func keyedByValues() async throws {
        try await MessageTemplateTests.withTemplates { composer, _ in
            let first = try await composer.compose(MessageTemplateTests.content(app: "First"))
            let second = try await composer.compose(MessageTemplateTests.content(app: "Second"))
            #expect(first.html?.contains("First") == true && first.html?.contains("Second") == false)
            #expect(second.html?.contains("Second") == true && second.html?.contains("First") == false)
            var other = MessageTemplateTests.content(app: "First")
            other.code = "135791"
            let third = try await composer.compose(other)
            #expect(third.body.contains("135791") && !third.body.contains("482913"))
            #expect(third.html == first.html?.replacingOccurrences(of: "482913", with: "135791"))
        }
    }
}
