import Foundation
import SesameCore

enum AuditChecks {
    static let all = [
        ConformanceCheck("audit: events read newest first by user, type and time, a page at a time, with their log ids") {
            store, clock in
            let start = clock.now()
            for index in 0..<6 {
                try await store.recordAudit(
                    AuditEvent(
                        type: index.isMultiple(of: 2) ? "login" : "otp_failed", userID: index < 4 ? "email|ana" : "email|bo",
                        clientID: "app", detail: "event \(index)", at: start.addingTimeInterval(Double(index))))
            }
            let all = try await store.auditEvents(AuditQuery(limit: 10))
            try await expect(all.map(\.detail) == (0..<6).reversed().map { "event \($0)" }, "newest first")
            try await expect(Set(all.compactMap(\.seq)).count == 6, "every event has its own log id")
            let ana = try await store.auditEvents(AuditQuery(userID: "email|ana"))
            try await expect(ana.map(\.detail) == ["event 3", "event 2", "event 1", "event 0"], "by user")
            let logins = try await store.auditEvents(AuditQuery(userID: "email|ana", type: "login"))
            try await expect(logins.map(\.detail) == ["event 2", "event 0"], "by user and type")
            let either = try await store.auditEvents(AuditQuery(types: ["otp_failed", "user_blocked"]))
            try await expect(either.map(\.detail) == ["event 5", "event 3", "event 1"], "by any of several types")
            try await expect(try await store.auditEvents(AuditQuery(types: [])).isEmpty, "by none of no types")
            let recent = try await store.auditEvents(AuditQuery(since: start.addingTimeInterval(4)))
            try await expect(recent.map(\.detail) == ["event 5", "event 4"], "since an instant, inclusive")
            let page = try await store.auditEvents(AuditQuery(limit: 2, offset: 2))
            try await expect(page.map(\.detail) == ["event 3", "event 2"], "a page")
        },
        ConformanceCheck("audit: a login's events are written with it, in order") { store, clock in
            let now = clock.now()
            let user = try await store.recordLogin(Fixture.user(at: now), at: now) { user in
                ["user_created", "login"].map { AuditEvent(type: $0, userID: user.userID, detail: "first", at: now) }
            }
            let events = try await store.auditEvents(AuditQuery(userID: user.userID))
            try await expect(events.map(\.type) == ["login", "user_created"], "both, newest first: \(events.map(\.type))")
            _ = try await store.recordLogin(Fixture.user(at: now), at: now) { _ in [] }
            try await expect(try await store.auditEvents(AuditQuery(userID: user.userID)).count == 2, "no events, none written")
        },
        ConformanceCheck("audit: a login's planned events are its outcome's, in order, with the stored user's id") {
            store, clock in
            let now = clock.now()
            // Each outcome's events name it in their detail, and carry a user id the storage
            // must replace with the stored user's.
            var planned: [LoginAudit.Outcome: [AuditEvent]] = [:]
            for outcome in LoginAudit.Outcome.allCases {
                planned[outcome] = ["first", "second"].map {
                    AuditEvent(type: $0, userID: "email|someone-else", clientID: "app", detail: outcome.rawValue, at: now)
                }
            }
            let plan = LoginAudit(events: planned)
            func written(_ user: User) async throws -> [String] {
                try await store.auditEvents(AuditQuery(userID: user.userID)).reversed().map { "\($0.detail) \($0.type)" }
            }
            let created = try await store.recordLogin(Fixture.user(at: now), at: now, audit: plan)
            try await expect(try await written(created) == ["created first", "created second"], "a first login: created")
            let again = try await store.recordLogin(Fixture.user(at: now), at: now, audit: plan)
            try await expect(again.id == created.id && again.loginsCount == 2, "the same user, counted")
            let returning = ["created first", "created second", "returning first", "returning second"]
            try await expect(try await written(again) == returning, "a later login: returning")
            _ = try await store.setUserBlocked(id: created.id, true, at: now)
            let blocked = try await store.recordLogin(Fixture.user(at: now), at: now, audit: plan)
            try await expect(blocked.blocked, "still blocked")
            try await expect(
                try await written(blocked) == returning + ["blocked first", "blocked second"], "a blocked user's: blocked")
            try await expect(try await store.auditEvents(AuditQuery(userID: "email|someone-else")).isEmpty, "no other id")
            let none = LoginAudit(events: [:])
            _ = try await store.recordLogin(Fixture.user("bo@example.com", at: now), at: now, audit: none)
            try await expect(try await store.auditEvents(AuditQuery()).count == 6, "a plan without events writes none")
        },
        ConformanceCheck("audit: retention deletes only events older than the cut-off") { store, clock in
            let now = clock.now()
            try await store.recordAudit(AuditEvent(type: "login", detail: "old", at: now.addingTimeInterval(-100 * 86400)))
            try await store.recordAudit(AuditEvent(type: "login", detail: "new", at: now))
            try await expect(try await store.deleteAuditEvents(before: now.addingTimeInterval(-90 * 86400)) == 1, "one old")
            try await expect(try await store.auditEvents(AuditQuery()).map(\.detail) == ["new"], "the new one stays")
        },
        ConformanceCheck("audit: aggregated events of one key make one row whose count adds up, even concurrently") {
            store, clock in
            let now = clock.now()
            func refusal(_ n: Int) -> AuditEvent {
                AuditEvent(type: "device_key_refused", clientID: "app", ip: "203.0.113.9", detail: "refusal \(n)", at: now)
            }
            try await expect(try await store.recordAggregatedAudit(refusal(0), aggregateKey: "k1"), "the first writes a row")
            try await expect(!(try await store.recordAggregatedAudit(refusal(1), aggregateKey: "k1")), "the second adds")
            let firsts = try await withThrowingTaskGroup(of: Bool.self) { group in
                for n in 2..<12 { group.addTask { try await store.recordAggregatedAudit(refusal(n), aggregateKey: "k1") } }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            try await expect(firsts == 0, "none of the concurrent ones writes a row of its own")
            try await expect(try await store.recordAggregatedAudit(refusal(20), aggregateKey: "k2"), "another key, another row")
            try await store.recordAudit(AuditEvent(type: "login", detail: "plain", at: now))
            try await store.recordAudit(AuditEvent(type: "login", detail: "plain", at: now))
            let rows = try await store.auditEvents(AuditQuery())
            try await expect(rows.map(\.detail) == ["plain", "plain", "refusal 20", "refusal 0"], "rows: \(rows.map(\.detail))")
            try await expect(rows.map(\.count) == [1, 1, 1, 12], "counts: \(rows.map(\.count))")
        },
    ]
}
