import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import SesameAPI
import SesameCore
import SesameStorageSQL

/// Complete email-code logins (start, read the code, exchange it). With several servers, each
/// login starts on one and finishes on the next, as a load balancer without sticky sessions
/// would route it.
struct LoadGenerator {
    let bases: [String]
    let clientID: String
    /// Where codes come from: the servers' console outbox, followed.
    let codes: CodeFeed

    /// One complete login; false when any step fails.
    func login(email: String, route: Int, client: some BenchPoster) async throws -> Bool {
        try await signIn(email: email, scope: "openid profile email", route: route, client: client) != nil
    }

    /// One complete login, returning the token response body (nil when any step fails).
    /// - Parameter route: which server starts the login; the next one finishes it.
    func signIn(email: String, scope: String, route: Int = 0, client: some BenchPoster) async throws -> [UInt8]? {
        let (first, second) = (bases[route % bases.count], bases[(route + 1) % bases.count])
        let start = ["client_id": clientID, "connection": "email", "email": email, "send": "code"]
        guard try await BenchHTTP.post(first + "/passwordless/start", start, client: client).status == .ok else { return nil }
        guard let code = await codes.code(for: email) else { return nil }
        let token = [
            "grant_type": GrantType.passwordlessOTP, "client_id": clientID, "realm": "email", "username": email,
            "otp": code, "scope": scope,
        ]
        let response = try await BenchHTTP.post(second + "/oauth/token", token, client: client)
        return response.status == .ok ? response.body : nil
    }
}

/// JSON POSTs for the load generators.
enum BenchHTTP {
    static func post(
        _ url: String, _ body: [String: String], headers: [(String, String)] = [], client: some BenchPoster
    ) async throws -> BenchResponse {
        try await client.send(url, body: json(body), headers: [("content-type", "application/json")] + headers)
    }

    /// `fields` as a JSON object, written directly: `JSONEncoder` was a tenth of the
    /// generator's CPU in the refresh benchmark, taken from the server it measures.
    static func json(_ fields: [String: String]) -> [UInt8] {
        var json = JSONObjectWriter()
        for (name, value) in fields { json.add(name, value) }
        return json.finish()
    }
}

extension Array where Element == Double {
    /// The `fraction` percentile (0…1) by nearest rank.
    func percentile(_ fraction: Double) -> Double {
        guard !isEmpty else { return 0 }
        let sorted = self.sorted()
        return sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }
}
