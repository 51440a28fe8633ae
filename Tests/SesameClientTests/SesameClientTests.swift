import Foundation
import SesameAPI
import SesameClient
import Testing

/// The SDK against a real server over TCP: what an app does, step by step.
@Suite("SesameClient against a live server")
struct SesameClientTests {
    @Test("email code: start, sign in with a verified id_token, read the profile, renew, revoke")
    func emailCodeLifecycle() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            let start = try await client.startPasswordless(email: "ana@example.com")
            #expect(!start.id.isEmpty && start.remaining != nil)
            let credentials = try await client.login(
                email: "ana@example.com", code: try await server.code(for: "ana@example.com"))
            #expect(credentials.idToken != nil && credentials.refreshToken != nil && credentials.expiresAt > Date())
            let profile = try await client.userInfo(accessToken: credentials.accessToken)
            #expect(profile.email == "ana@example.com" && profile.emailVerified == true)
            let renewed = try await client.renew(refreshToken: try #require(credentials.refreshToken))
            #expect(renewed.refreshToken != credentials.refreshToken)
            try await client.revoke(refreshToken: try #require(renewed.refreshToken))
            await #expect { _ = try await client.userInfo(accessToken: renewed.accessToken) } throws: {
                ($0 as? SesameClientError)?.status == 401
            }
        }
    }

    @Test("SMS code: the phone number is the verified identity")
    func smsCode() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            try await client.startPasswordless(phoneNumber: "+14155550123")
            let credentials = try await client.login(
                phoneNumber: "+14155550123", code: try await server.code(for: "+14155550123"), scope: "openid phone")
            let profile = try await client.userInfo(accessToken: credentials.accessToken)
            #expect(profile.phoneNumber == "+14155550123" && profile.phoneNumberVerified == true)
        }
    }

    @Test("a wrong code is invalid credentials with the server's words, the third is used up; a spent refresh token likewise")
    func typedErrors() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            try await client.startPasswordless(email: "ana@example.com")
            await #expect {
                _ = try await client.login(email: "ana@example.com", code: "000000")
            } throws: { error in
                let error = error as? SesameClientError
                return error?.isInvalidCredentials == true && error?.message == "Wrong email or verification code."
                    && error?.isCodeExpired == false && error?.isCodeUsedUp == false
            }
            _ = try? await client.login(email: "ana@example.com", code: "000000")
            await #expect {
                _ = try await client.login(email: "ana@example.com", code: "000000")
            } throws: { ($0 as? SesameClientError)?.isCodeUsedUp == true }
            await #expect { _ = try await client.renew(refreshToken: "not-a-token") } throws: {
                ($0 as? SesameClientError)?.isInvalidCredentials == true
            }
        }
    }

    @Test("an expired code is invalid credentials and says it expired; a revoked refresh token is invalid credentials")
    func expiredAndRevoked() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            try await client.startPasswordless(email: "ana@example.com")
            let code = try await server.code(for: "ana@example.com")
            server.clock.advance(by: 181)
            await #expect { _ = try await client.login(email: "ana@example.com", code: code) } throws: {
                let error = $0 as? SesameClientError
                return error?.isInvalidCredentials == true && error?.isCodeExpired == true && error?.isCodeUsedUp == false
            }
            let credentials = try await server.signIn(client)
            let refreshToken = try #require(credentials.refreshToken)
            try await client.revoke(refreshToken: refreshToken)
            await #expect { _ = try await client.renew(refreshToken: refreshToken) } throws: {
                ($0 as? SesameClientError)?.isInvalidCredentials == true
            }
        }
    }

    @Test("too many starts: rate limited, with the time it resets")
    func rateLimited() async throws {
        try await LiveServer.run { server in
            let client = SesameClient(domain: server.domain, clientID: server.clientID)
            for _ in 1...5 { try await client.startPasswordless(email: "ana@example.com") }
            await #expect {
                try await client.startPasswordless(email: "ana@example.com")
            } throws: { error in
                let error = error as? SesameClientError
                return error?.isRateLimited == true && (error?.rateLimitReset ?? .distantPast) > Date()
            }
        }
    }

    @Test("no server: a network error, not a crash")
    func networkError() async throws {
        let client = SesameClient(domain: URL(string: "http://127.0.0.1:9")!, clientID: "app")
        await #expect { try await client.startPasswordless(email: "ana@example.com") } throws: {
            ($0 as? SesameClientError)?.isNetworkError == true
        }
    }
}
