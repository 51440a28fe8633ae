public import Foundation

/// Magic links that work across devices (``LinkRequest``). Transitions are the single-use
/// gate of the flow and must be atomic against concurrent callers, on one instance or many.
public protocol LinkRequestRepository: Sendable {
    /// Stores a new request; throws `.alreadyExists` on a duplicate id or poll-secret hash.
    func createLinkRequest(_ request: LinkRequest) async throws
    /// The request with this id, in any state.
    func linkRequest(id: String) async throws -> LinkRequest?
    /// The request whose poll secret has one of `hashes` (current and previous HMAC keys), in any state.
    func linkRequest(pollSecretHashes hashes: [[UInt8]]) async throws -> LinkRequest?
    /// Moves the request from `from` to `to` if it is in `from` and not expired at `at`,
    /// recording `at` as the decision time and `userID` when given. True for exactly one of
    /// any number of concurrent callers.
    func transitionLinkRequest(
        id: String, from: LinkRequest.Status, to: LinkRequest.Status, userID: String?, at: Date
    ) async throws -> Bool
}
