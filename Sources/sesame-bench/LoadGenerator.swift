import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
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
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, (name, value)) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            append(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped (RFC 8259 §7).
    private static func append(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
            case 0..<0x20: bytes += Array(String(format: "\\u%04x", byte).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
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
