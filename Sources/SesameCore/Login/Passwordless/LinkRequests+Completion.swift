import Foundation

extension LinkRequests {
    /// Finishes the approved request of `pollSecret`, once: returns it and its user.
    /// - Throws: as ``complete(pollSecret:clientID:)``.
    func completed(pollSecret: String?, clientID: String?) async throws -> (request: LinkRequest, user: User) {
        let (request, user) = try await approved(pollSecret: pollSecret, clientID: clientID)
        // The transition is the single-use gate: of two polls racing, one gets the tokens.
        guard try await finishApproved(request) else { throw Self.expired }
        return (request, user)
    }

    /// The approved request of `pollSecret` and its user, read again, without finishing it: a
    /// caller with steps that may fail takes them first and finishes it last
    /// (``finishApproved(_:)``), so a failure leaves the request approved for its retry.
    /// - Throws: as ``complete(pollSecret:clientID:)``.
    func approved(pollSecret: String?, clientID: String?) async throws -> (request: LinkRequest, user: User) {
        // Another application's request answers like an unknown one: a client learns nothing
        // about requests it did not make.
        guard let request = try await lookup(pollSecret), request.isLive(at: clock.now()),
            clientID.map({ $0 == request.clientID }) ?? true
        else { throw Self.expired }
        switch request.status {
        case .pending:
            throw SesameError(.link(.pending), "The link has not been confirmed yet.")
        case .denied:
            throw Self.denied
        case .completed:
            throw Self.expired
        case .approved:
            guard let userID = request.userID, let (_, id) = User.parse(userID: userID),
                let user = try await storage.user(id: id)
            else { throw Self.expired }
            guard !user.blocked else { throw SesameError.userBlocked }
            return (request, user)
        }
    }

    /// Moves an approved request to completed: true for exactly one of any number of callers.
    func finishApproved(_ request: LinkRequest) async throws -> Bool {
        try await storage.transitionLinkRequest(
            id: request.id, from: .approved, to: .completed, userID: nil, at: clock.now())
    }
}
