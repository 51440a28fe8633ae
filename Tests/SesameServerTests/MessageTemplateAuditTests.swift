import Foundation
import SesameCore
import SesameServer
import SesameStorageConformance
import SesameStorageSQL
import Testing

/// Template changes are audited on Core's one audit path, like every other operator change.
@Suite("Message templates: changes are audited on the shared path")
struct MessageTemplateAuditTests {
    @Test("set and reset write template events stamped by the injected clock, each field bounded like every audit row")
    func auditedOnTheSharedPath() async throws {
        let storage = try await SQLStorage.sqlite(path: nil)
        do {
            let clock = TestClock()
            let admin = try MessageTemplateAdministration(storage: storage, clock: clock)
            // A scope naming an application by a huge id: the detail quotes it, and the shared
            // path bounds every field, so no audit row grows with its input.
            let scope = MessageTemplateOverride.Scope.application(String(repeating: "c", count: 2000))
            try await admin.set("sms-code.text", language: "en", scope: .all, source: "{{code}}")
            try await admin.set("sms-code.text", language: "en", scope: scope, source: "{{code}}")
            #expect(try await admin.reset("sms-code.text", language: "en", scope: .all))
            let events = try await storage.auditEvents(AuditQuery())
            #expect(events.map(\.type).sorted() == ["template_reset", "template_set", "template_set"])
            #expect(events.allSatisfy { $0.at == clock.now() && $0.detail.count <= 512 })
            #expect(events.contains { $0.detail.hasPrefix("sms-code.text en for application") })
        } catch {
            try? await storage.shutdown()
            throw error
        }
        try await storage.shutdown()
    }
}
