import Foundation
import SesameCore

enum SessionChecks {
    static func session(id: String, user: String = "email|ana", hash: UInt8, at now: Date) -> BrowserSession {
        BrowserSession(
            id: id, secretHash: Array(repeating: hash, count: 32), userID: user, methods: ["hosted_otp"], createdAt: now,
            authTime: now, lastSeenAt: now, expiresAt: now.addingTimeInterval(3600), ip: "198.51.100.7", userAgent: "test")
    }

    static let all = [
        ConformanceCheck("browser sessions: found by id in any state") { store, clock in
            try await store.createBrowserSession(session(id: "s1", hash: 1, at: clock.now()))
            try await expect(try await store.browserSession(id: "s1")?.ip == "198.51.100.7", "found by id")
            _ = try await store.revokeBrowserSession(id: "s1", userID: nil, at: clock.now())
            try await expect(try await store.browserSession(id: "s1")?.revokedAt == clock.now(), "a revoked one too")
            try await expect(try await store.browserSession(id: "nope") == nil, "an unknown id is nil")
        },
        ConformanceCheck("browser sessions: stored, found by any of their hashes, touched") { store, clock in
            try await store.createBrowserSession(session(id: "s1", hash: 1, at: clock.now()))
            let found = try await store.browserSession(secretHashes: [
                Array(repeating: 9, count: 32), Array(repeating: 1, count: 32),
            ])
            try await expect(
                found?.id == "s1" && found?.methods == ["hosted_otp"] && found?.ip == "198.51.100.7", "found by hash")
            clock.advance(by: 60)
            try await store.touchBrowserSession(id: "s1", at: clock.now())
            let touched = try await store.browserSession(secretHashes: [Array(repeating: 1, count: 32)])
            try await expect(touched?.lastSeenAt == clock.now(), "the use is recorded")
        },
        ConformanceCheck("browser sessions: a person revokes only their own; revoke all; expired ones are not listed") {
            store, clock in
            try await store.createBrowserSession(session(id: "a1", hash: 1, at: clock.now()))
            try await store.createBrowserSession(session(id: "a2", hash: 2, at: clock.now().addingTimeInterval(1)))
            try await store.createBrowserSession(session(id: "b1", user: "email|bo", hash: 3, at: clock.now()))
            try await expect(
                !(try await store.revokeBrowserSession(id: "b1", userID: "email|ana", at: clock.now())),
                "another person's session is untouched")
            try await expect(
                try await store.revokeBrowserSession(id: "a1", userID: "email|ana", at: clock.now()), "the owner's goes")
            try await expect(
                !(try await store.revokeBrowserSession(id: "a1", userID: nil, at: clock.now())),
                "a revoked one is not revoked twice")
            let listed = try await store.browserSessions(userID: "email|ana", at: clock.now())
            try await expect(listed.map(\.id) == ["a2"], "only live sessions are listed")
            try await expect(try await store.revokeBrowserSessions(userID: "email|bo", at: clock.now()) == 1, "revoke all")
            clock.advance(by: 3602)
            try await expect(try await store.allBrowserSessions(at: clock.now(), limit: 10).isEmpty, "expired ones are gone")
            let swept = try await store.sweep(now: clock.now(), windowsBefore: clock.now(), outboxBefore: clock.now())
            try await expect(swept.removed["browser_sessions"] == 3, "the sweeper removes expired sessions")
        },
        ConformanceCheck("browser sessions: the applications a session answered, once per sid, swept with it") {
            store, clock in
            let now = clock.now()
            func use(_ session: String, _ client: String, sid: String) -> SessionApplication {
                SessionApplication(
                    sessionID: session, clientID: client, sid: sid, createdAt: now, expiresAt: now.addingTimeInterval(3600))
            }
            try await store.recordSessionApplication(use("s1", "app-b", sid: "s1"))
            try await store.recordSessionApplication(use("s1", "app-a", sid: "s0"))
            try await store.recordSessionApplication(use("s1", "app-b", sid: "s1"))
            try await store.recordSessionApplication(use("s2", "app-c", sid: "s2"))
            let uses = try await store.sessionApplications(sessionID: "s1")
            try await expect(
                uses == [use("s1", "app-a", sid: "s0"), use("s1", "app-b", sid: "s1")], "each application once, in order")
            try await expect(try await store.sessionApplications(sessionID: "nope").isEmpty, "none for an unknown session")
            var code = Fixture.authorizationCode(hash: 7, at: now)
            code.sessionID = "s1"
            try await store.createAuthorizationCode(code)
            let consumed = try await store.consumeAuthorizationCode(hashes: [Array(repeating: 7, count: 32)], at: now)
            try await expect(consumed?.sessionID == "s1", "a code keeps the session it came from")
            clock.advance(by: 3601)
            let swept = try await store.sweep(now: clock.now(), windowsBefore: clock.now(), outboxBefore: clock.now())
            try await expect(swept.removed["session_applications"] == 3, "the sweeper removes them with their sessions")
        },
    ]
}
