import Foundation

extension LinkRequests {
    /// Confirms a link opened on another device: the person typed `match`, the number the
    /// asking screen shows. A right number consumes the link (the single-use path of every
    /// passwordless login), records the login and approves the request; the asker then
    /// finishes it. A wrong or missing number refuses the request and kills the link, since
    /// it means the person did not start this sign-in (someone else did, with their address).
    /// - Returns: the signed-in user, created on first login.
    /// - Throws: 400 `expired_token` when the request is not waiting; the passwordless
    ///   errors for a wrong, used, expired or other application's link (nothing is decided
    ///   then, so knowing the request id alone decides nothing); 403 `access_denied` for a
    ///   wrong number; `user is blocked`.
    public func approve(
        id: String?, match: String?, credentials: PasswordlessCredentials, ip: String?
    ) async throws -> User {
        let request = try await pending(id)
        guard matches(match, request.matchCode) else {
            try await refuse(request, credentials: credentials, ip: ip, reason: "wrong match code")
            throw SesameError(
                .link(.wrongMatch), "The numbers did not match, so this sign-in was stopped. Start again on the other screen.")
        }
        // Consumed, recorded and approved as one exchange: when a step after the consumption
        // fails, the link is given back and the page's retry (the same number and link, within
        // seconds) approves the request, instead of finding the link spent and the asker stuck.
        return try await passwordless.exchange(
            credentials.from(ip), clientID: request.clientID, challengeID: request.challengeID, refusesWhileHeld: true
        ) { candidate in
            try await approve(request, candidate, ip: ip)
        }
    }

    /// Records the login of an approved request's user and approves it.
    private func approve(_ request: LinkRequest, _ candidate: User, ip: String?) async throws -> User {
        let user: User
        do {
            user = try await coordinator.recordLogin(candidate, method: .magicLink, clientID: request.clientID, ip: ip)
        } catch let error as SesameError where error == .userBlocked {
            // The asker stops polling at once instead of waiting for the request to expire.
            _ = try await storage.transitionLinkRequest(id: request.id, from: .pending, to: .denied, userID: nil, at: clock.now())
            throw error
        }
        guard
            try await storage.transitionLinkRequest(
                id: request.id, from: .pending, to: .approved, userID: user.userID, at: clock.now())
        else { throw Self.expired }
        await coordinator.audit(
            .linkRequestApproved, user: user.userID, client: request.clientID, ip: ip, detail: "link request \(request.id)")
        return user
    }

    /// "It wasn't me": refuses the request and kills its link. Needs the link's secret, so
    /// the request id alone (which a stranger may see) refuses nothing.
    /// - Throws: 400 `expired_token` when the request is not waiting; the passwordless errors
    ///   for a wrong or dead link.
    public func deny(id: String?, credentials: PasswordlessCredentials) async throws {
        let request = try await pending(id)
        try await refuse(request, credentials: credentials, ip: nil, reason: "refused by the person")
    }

    /// Records that the link was confirmed in the asking browser itself (the page consumed it
    /// with ``BrowserLogin``), so the polling tab can say so. Only a request
    /// whose link is already spent can be marked, so the id alone cannot stop a sign-in.
    /// - Returns: whether the request was waiting and is now completed.
    @discardableResult
    public func markCompleted(id: String?) async throws -> Bool {
        guard let request = try await request(id: id), request.status == .pending,
            let newest = try await storage.newestChallenge(connection: request.connection, recipient: request.recipient),
            newest.id == request.challengeID, newest.consumedAt != nil
        else { return false }
        return try await storage.transitionLinkRequest(
            id: request.id, from: .pending, to: .completed, userID: nil, at: clock.now())
    }

    /// Checks the link's secret, spends it and refuses the request.
    private func refuse(
        _ request: LinkRequest, credentials: PasswordlessCredentials, ip: String?, reason: String
    ) async throws {
        _ = try await passwordless.check(
            credentials, clientID: request.clientID, challengeID: request.challengeID, consume: true)
        let now = clock.now()
        _ = try await storage.transitionLinkRequest(id: request.id, from: .pending, to: .denied, userID: nil, at: now)
        await coordinator.audit(
            .linkRequestDenied, client: request.clientID, ip: ip, detail: "link request \(request.id): \(reason)")
    }

    /// The live request of `id` that is still waiting.
    private func pending(_ id: String?) async throws -> LinkRequest {
        guard let request = try await request(id: id), request.status == .pending else { throw Self.expired }
        return request
    }

    /// Compares the typed number, spaces ignored, in constant time.
    private func matches(_ typed: String?, _ expected: String) -> Bool {
        let typed = typed?.filter { !$0.isWhitespace } ?? ""
        return SecretHasher.constantTimeEquals(Array(typed.utf8), Array(expected.utf8))
    }
}
