import ArgumentParser
import Foundation
import NIOHTTP1
import SesameAPI
import SesameCore
import Synchronization

/// `sesame-bench refresh`: refresh-token grants per second over HTTP against a real server
/// process. Each worker holds one user's refresh token and rotates it back to back, as an app
/// renewing its session would; every grant returns a new id_token (one RSA signature), so the
/// figure is reported against the RSA-2048 signing bound measured in the same run.
struct RefreshBench: LoadBenchmark {
    static let configuration = CommandConfiguration(
        commandName: "refresh", abstract: "Refresh-token grants per second (rotating; a new id_token each).")

    @OptionGroup var load: LoadOptions

    func measure() async throws -> Report {
        try await HTTPBench.measure(kind: "refresh", load) { target in
            let sessions = try await Self.signIn(count: load.concurrency, target: target)
            let (base, clientID) = (target.base, target.clientID)
            let connections = try await target.connections(count: load.concurrency)
            return { worker, _ in
                let body = ["grant_type": "refresh_token", "client_id": clientID, "refresh_token": sessions.token(worker)]
                let response = try await BenchHTTP.post(base + "/oauth/token", body, client: connections[worker])
                // The fast reader rather than `JSONDecoder`: the generator shares the cores with
                // the server, so what it spends on an answer is taken from the server measured.
                guard response.status == .ok, let tokens = JSONObjectReader.members(response.body),
                    case .string? = tokens["id_token"], case .string(let next)? = tokens["refresh_token"]
                else { return false }
                sessions.replace(worker, with: next)
                return true
            }
        }
    }

    /// Signs `count` users in with an email code and `offline_access` (outside the measured time).
    private static func signIn(count: Int, target: BenchTarget) async throws -> RefreshTokens {
        let generator = LoadGenerator(bases: target.bases, clientID: target.clientID, codes: target.codes)
        var tokens: [String] = []
        for index in 0..<count {
            let email = "refresh-\(index)-\(UInt32.random(in: 0...UInt32.max))@example.com"
            guard let body = try await generator.signIn(email: email, scope: "openid offline_access", client: target.client),
                let token = try? JSONDecoder().decode(TokenFields.self, from: Data(body)).refreshToken
            else { throw BenchError("sign-in for a refresh token failed for \(email)") }
            tokens.append(token)
        }
        return RefreshTokens(tokens)
    }

    private struct TokenFields: Decodable {
        let refreshToken: String?
        let idToken: String?
        enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token", idToken = "id_token" }
    }
}

/// Each worker's current refresh token; rotation replaces it after every grant.
final class RefreshTokens: Sendable {
    private let tokens: Mutex<[String]>

    init(_ tokens: [String]) { self.tokens = Mutex(tokens) }

    func token(_ worker: Int) -> String { tokens.withLock { $0[worker] } }

    func replace(_ worker: Int, with token: String) { tokens.withLock { $0[worker] = token } }
}
