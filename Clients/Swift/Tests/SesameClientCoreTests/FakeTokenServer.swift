import Foundation
import SesameAPI
@_spi(Sesame) import SesameClientCore

/// A value shared between tasks of a test.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    var current: Value { lock.withLock { value } }

    @discardableResult
    func update<T>(_ change: (inout Value) -> T) -> T { lock.withLock { change(&value) } }
}

/// Holds tasks until opened: a renewal the test lets finish when it has done what it wants
/// to do while the renewal is under way.
actor Gate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for task in waiting { task.resume() }
        waiting = []
    }
}

/// Sesame's Authentication API without a server: codes (`123456` is right), magic links,
/// passkey ceremonies and renewals. It counts what it was asked, numbers the tokens it
/// hands out, tells the test when a renewal or a link wait arrives and holds it at the gate.
final class FakeTokenServer: Sendable {
    let refreshes = Locked(0)
    let revocations = Locked(0)
    /// The identifiers codes were sent to, in order.
    let starts = Locked<[String]>([])
    /// `X-RateLimit-Remaining` and `-Reset` on a start, when set.
    let rateLimit = Locked<(remaining: Int, reset: Date)?>(nil)
    /// The last `authn_response` of a webauthn grant.
    let passkeyAnswer = Locked<[String: any Sendable]?>(nil)
    let gate = Gate()
    let arrivals: AsyncStream<Void>
    private let arrival: AsyncStream<Void>.Continuation

    init() {
        (arrivals, arrival) = AsyncStream.makeStream()
    }

    var client: SesameClient {
        SesameClient(domain: URL(string: "https://login.example.com")!, clientID: "app", exchange: send)
    }

    /// A session whose access token is about to expire, with refresh token `refresh-0`.
    static func expiring(now: Date = Date()) -> Credentials {
        Credentials(
            TokenBody(
                accessToken: "access-0", tokenType: "Bearer", expiresIn: 30, idToken: nil, refreshToken: "refresh-0", scope: nil),
            receivedAt: now)
    }

    @Sendable func send(_ request: HTTPExchange.Request) async throws -> HTTPExchange.Response {
        let body = request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        switch request.url.path {
        case "/oauth/token": return await token(body)
        case "/oauth/revoke":
            revocations.update { $0 += 1 }
            return Self.json("{}")
        case "/passwordless/start":
            starts.update { $0.append((body["email"] ?? body["phone_number"]) as? String ?? "") }
            let headers = rateLimit.current.map {
                [("X-RateLimit-Remaining", "\($0.remaining)"), ("X-RateLimit-Reset", "\(Int($0.reset.timeIntervalSince1970))")]
            }
            return Self.json(#"{"_id":"start"}"#, headers: headers ?? [])
        case "/passwordless/link":
            return Self.json(#"{"link_session":"session","match_code":"42","expires_in":300,"interval":1}"#)
        case "/.well-known/openid-configuration":
            return Self.json(#"{"issuer":"https://login.example.com/"}"#)
        case "/passkey/challenge":
            return Self.json(#"{"auth_session":"s","authn_params_public_key":{"rpId":"login.example.com","challenge":"AQID"}}"#)
        case "/passkey/register":
            return Self.json(
                #"{"auth_session":"s","authn_params_public_key":{"rp":{"id":"login.example.com"},"challenge":"AQID","user":{"id":"BAUG"}}}"#
            )
        default:
            return HTTPExchange.Response(status: 404, headers: [], body: Data(), reason: "Not Found")
        }
    }

    private func token(_ body: [String: Any]) async -> HTTPExchange.Response {
        switch body["grant_type"] as? String {
        case "refresh_token":
            let number = refreshes.update { count in
                count += 1
                return count
            }
            arrival.yield()
            await gate.wait()
            return Self.tokens("access-\(number)", refresh: "refresh-\(number)")
        case "http://auth0.com/oauth/grant-type/passwordless/otp":
            guard body["otp"] as? String == "123456" else {
                return Self.json(
                    #"{"error":"invalid_grant","error_description":"Wrong email or verification code."}"#, status: 403)
            }
            return Self.tokens("code-login", refresh: nil)
        case "urn:okta:params:oauth:grant-type:webauthn":
            passkeyAnswer.update { $0 = (body["authn_response"] as? [String: Any]).map(Self.sendable) }
            return Self.tokens("passkey-login", refresh: nil)
        default:
            arrival.yield()
            await gate.wait()
            return Self.tokens("link-login", refresh: nil)
        }
    }

    private static func sendable(_ object: [String: Any]) -> [String: any Sendable] {
        object.mapValues { value in
            if let nested = value as? [String: Any] { return sendable(nested) }
            return value as? String ?? "\(value)"
        }
    }

    private static func tokens(_ access: String, refresh: String?) -> HTTPExchange.Response {
        let refresh = refresh.map { #","refresh_token":"\#($0)""# } ?? ""
        return json(#"{"access_token":"\#(access)","token_type":"Bearer","expires_in":86400\#(refresh)}"#)
    }

    private static func json(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> HTTPExchange.Response {
        HTTPExchange.Response(
            status: status, headers: headers + [("Content-Type", "application/json")], body: Data(text.utf8),
            reason: status == 200 ? "OK" : "Error")
    }
}

/// A session kept in memory.
final class MemoryCredentialsStore: CredentialsStore {
    let session = Locked<StoredSession?>(nil)
    let loads = Locked(0)

    func load() throws -> StoredSession? {
        loads.update { $0 += 1 }
        return session.current
    }

    func containsSession() throws -> Bool { session.current != nil }
    func save(_ session: StoredSession) throws { self.session.update { $0 = session } }
    func clear() throws { session.update { $0 = nil } }
}
