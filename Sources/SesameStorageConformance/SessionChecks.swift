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
    ]
}
