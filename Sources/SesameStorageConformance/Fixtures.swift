import Foundation
import SesameCore

/// Record builders for the checks: a valid record that each check changes as it needs.
enum Fixture {
    static func user(_ identifier: String = "ana@example.com", id: String? = nil, at now: Date) -> User {
        User.newPasswordless(
            id: id ?? String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(24)).lowercased(),
            connection: Connection(name: "email", strategy: .email), identifier: identifier, at: now)
    }

    static func application(_ clientID: String = "client-\(UUID().uuidString)", at now: Date) -> Application {
        Application(
            clientID: clientID, clientSecret: nil, name: "App", type: .native, callbacks: ["https://app.example/cb"],
            createdAt: now)
    }

    static func challenge(
        id: String = UUID().uuidString, recipient: String = "ana@example.com", maxAttempts: Int = 3, at now: Date,
        lifetime: TimeInterval = 180
    ) -> Challenge {
        Challenge(
            id: id, connection: "email", recipient: recipient, clientID: "client", kind: .code,
            secretHash: Array(repeating: 7, count: 32), maxAttempts: maxAttempts, createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime))
    }

    static func refreshToken(family: String = "family", hash: UInt8, client: String = "client", at now: Date) -> RefreshToken {
        RefreshToken(
            id: UUID().uuidString, familyID: family, tokenHash: Array(repeating: hash, count: 32), clientID: client,
            userID: "email|abc", scope: "openid offline_access", audience: nil, createdAt: now,
            expiresAt: now.addingTimeInterval(3600))
    }

    static func authorizationCode(hash: UInt8, at now: Date) -> AuthorizationCode {
        AuthorizationCode(
            codeHash: Array(repeating: hash, count: 32), clientID: "client", userID: "email|abc",
            redirectURI: "https://app.example/cb", scope: "openid", nonce: "n", audience: nil, codeChallenge: "c",
            createdAt: now, expiresAt: now.addingTimeInterval(300))
    }
}

/// Runs `body` `count` times concurrently and returns the results.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: T.self) { group in
        for _ in 0..<count { group.addTask { try await body() } }
        var results: [T] = []
        for try await result in group { results.append(result) }
        return results
    }
}

extension RefreshRotation {
    /// Whether the presented token was rotated into a new one.
    var wasRotated: Bool {
        if case .rotated = self { return true }
        return false
    }
}
