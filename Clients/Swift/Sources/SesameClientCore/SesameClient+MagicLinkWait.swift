import Foundation
import SesameAPI

/// A magic link on its way: show ``matchCode`` and wait with
/// ``SesameClient/waitForMagicLink(_:scope:audience:)``.
public struct MagicLinkWait: Sendable, Equatable {
    /// The secret the wait polls with; keep it private.
    public let linkSession: String
    /// The two digits to show: the person types them where they open the link.
    public let matchCode: String
    /// Seconds until the link expires.
    public let expiresIn: Int
    /// Seconds between polls.
    public let interval: Int

    /// Creates a wait.
    public init(linkSession: String, matchCode: String, expiresIn: Int, interval: Int) {
        self.linkSession = linkSession
        self.matchCode = matchCode
        self.expiresIn = expiresIn
        self.interval = interval
    }
}

extension SesameClient {
    /// Mails a sign-in link to `email` that may be opened on any device (a phone, say, while
    /// this app waits on a computer). Show the person ``MagicLinkWait/matchCode``: the page
    /// the link opens asks for it. The answer is the same whether or not the address has an
    /// account.
    ///
    /// ```swift
    /// let wait = try await sesame.startMagicLink(email: "ana@example.com")
    /// print("Open the link and enter \(wait.matchCode)")
    /// let credentials = try await sesame.waitForMagicLink(wait)
    /// ```
    /// - Throws: ``SesameClientError``; ``SesameClientError/isRateLimited`` with the reset time.
    public func startMagicLink(email: String, connection: String = "email") async throws -> MagicLinkWait {
        let answer = try await transport.post(
            "/passwordless/link", ["client_id": clientID, "connection": connection, "email": email])
        let body = try transport.decode(LinkSessionBody.self, answer)
        return MagicLinkWait(
            linkSession: body.linkSession, matchCode: body.matchCode, expiresIn: body.expiresIn, interval: body.interval)
    }

    /// Waits until the link is confirmed, polling every ``MagicLinkWait/interval`` seconds,
    /// and signs in. Cancel the task to stop waiting.
    /// - Throws: ``SesameClientError``: ``SesameClientError/isAccessDenied`` when the person
    ///   refused on the other device (or typed a wrong number), ``SesameClientError/isLinkExpired``
    ///   when the link expired or was used; `CancellationError` when cancelled.
    public func waitForMagicLink(_ wait: MagicLinkWait, scope: String = defaultScope, audience: String? = nil)
        async throws -> Credentials
    {
        // Task.sleep(for:) needs iOS 16; the SDK supports iOS 15.
        try await waitForMagicLink(wait, scope: scope, audience: audience) {
            try await Task.sleep(nanoseconds: UInt64($0) * 1_000_000_000)
        }
    }

    /// The wait, with its own sleep (tests).
    func waitForMagicLink(
        _ wait: MagicLinkWait, scope: String, audience: String?, sleep: @Sendable (Int) async throws -> Void
    ) async throws -> Credentials {
        var interval = max(wait.interval, 1)
        while true {
            do {
                return try await tokens([
                    "grant_type": LinkSessionBody.grantType, "client_id": clientID, "link_session": wait.linkSession,
                    "scope": scope, "audience": audience,
                ])
            } catch let error as SesameClientError where error.code == "authorization_pending" {
                try await sleep(interval)
            } catch let error as SesameClientError where error.code == "slow_down" {
                // RFC 8628 §3.5: wait five seconds longer from now on.
                interval += 5
                try await sleep(interval)
            }
        }
    }
}
