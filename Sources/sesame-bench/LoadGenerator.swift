import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SesameCore
import SesameStorageSQL

/// Drives complete email-code logins (start, read the code, exchange it) at a fixed
/// concurrency for a fixed time, like `concurrency` users signing in back to back.
struct LoadGenerator {
    let baseURL: String
    let clientID: String
    /// Where codes are read from: the server's own database (the console outbox).
    let outbox: SQLStorage
    let concurrency: Int
    let duration: Duration

    struct Result {
        var latencies: [Double] = []
        var failures = 0
        var elapsed: Double = 0
    }

    func run(client: HTTPClient) async throws -> Result {
        let started = ContinuousClock.now
        let deadline = started + duration
        var result = try await withThrowingTaskGroup(of: Result.self) { group in
            for worker in 0..<concurrency {
                group.addTask { try await loop(worker: worker, until: deadline, client: client) }
            }
            return try await group.reduce(into: Result()) { total, part in
                total.latencies += part.latencies
                total.failures += part.failures
            }
        }
        result.elapsed = (ContinuousClock.now - started).seconds
        return result
    }

    private func loop(worker: Int, until deadline: ContinuousClock.Instant, client: HTTPClient) async throws -> Result {
        var result = Result()
        var index = 0
        while ContinuousClock.now < deadline {
            index += 1
            let begin = ContinuousClock.now
            if try await login(email: "bench-\(worker)-\(index)-\(UInt32.random(in: 0...UInt32.max))@example.com", client: client) {
                result.latencies.append((ContinuousClock.now - begin).seconds * 1000)
            } else {
                result.failures += 1
            }
        }
        return result
    }

    /// One complete login; false when any step fails.
    func login(email: String, client: HTTPClient) async throws -> Bool {
        let start = ["client_id": clientID, "connection": "email", "email": email, "send": "code"]
        guard try await post("/passwordless/start", start, client: client) == .ok else { return false }
        guard let code = try await code(for: email) else { return false }
        let token = [
            "grant_type": GrantType.passwordlessOTP, "client_id": clientID, "realm": "email", "username": email,
            "otp": code, "scope": "openid profile email",
        ]
        return try await post("/oauth/token", token, client: client) == .ok
    }

    private func code(for email: String) async throws -> String? {
        for _ in 0..<200 {
            if let code = try await outbox.recentOutboxMessages(limit: 1, recipient: email).first?.code { return code }
            try await Task.sleep(for: .milliseconds(1))
        }
        return nil
    }

    private func post(_ path: String, _ body: [String: String], client: HTTPClient) async throws -> HTTPResponseStatus {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(body)))
        let response = try await client.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status
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
