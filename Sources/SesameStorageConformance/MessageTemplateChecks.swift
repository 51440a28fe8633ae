import Foundation
import SesameCore

enum MessageTemplateChecks {
    static func template(_ name: String, _ language: String, _ scope: MessageTemplateOverride.Scope, body: String, at: Date)
        -> MessageTemplateOverride
    {
        MessageTemplateOverride(name: name, language: language, scope: scope, body: body, updatedAt: at)
    }

    static let all = [
        ConformanceCheck("message templates: one override per name, language and scope; setting again replaces it") {
            store, clock in
            let now = clock.now()
            try await store.setMessageTemplate(template("sms-code.text", "fr", .all, body: "v1 {{code}}", at: now))
            try await store.setMessageTemplate(template("sms-code.text", "fr", .connection("sms"), body: "conn", at: now))
            try await store.setMessageTemplate(template("sms-code.text", "fr", .application("app1"), body: "app", at: now))
            try await store.setMessageTemplate(template("sms-code.text", "de", .all, body: "de", at: now))
            _ = try await store.messageTemplates()  // a backend may cache the list: writes must not leave it stale
            let later = now.addingTimeInterval(5)
            try await store.setMessageTemplate(template("sms-code.text", "fr", .all, body: "v2 {{code}}", at: later))
            let all = try await store.messageTemplates()
            try await expect(all.count == 4, "four overrides, the replaced one counted once")
            try await expect(
                all.contains(template("sms-code.text", "fr", .all, body: "v2 {{code}}", at: later)),
                "the second set replaced the body and the time")
            try await expect(
                Set(all.map(\.scope)) == [.all, .connection("sms"), .application("app1")], "every scope round-trips")
        },
        ConformanceCheck("message templates: reset deletes exactly one override and says whether there was one") {
            store, clock in
            let now = clock.now()
            try await store.setMessageTemplate(template("email-code.html", "en", .all, body: "all", at: now))
            try await store.setMessageTemplate(template("email-code.html", "en", .connection("email"), body: "c", at: now))
            _ = try await store.messageTemplates()
            try await expect(
                try await store.deleteMessageTemplate(name: "email-code.html", language: "en", scope: .connection("email")),
                "the override is deleted")
            try await expect(
                try await !store.deleteMessageTemplate(name: "email-code.html", language: "en", scope: .connection("email")),
                "a second reset finds nothing")
            try await expect(try await store.messageTemplates().map(\.scope) == [.all], "the other scope stays")
        },
    ]
}
