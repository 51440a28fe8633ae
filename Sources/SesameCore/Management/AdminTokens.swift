public import Foundation

/// Management tokens for `/api/v2`, for operators and back ends.
///
/// `sesame admin tokens create --name ci --scope read:logs --json` prints a `sadm_…` token once; send it as
/// `Authorization: Bearer sadm_…`. Only its HMAC is stored, so a database leak does not leak
/// tokens; `sesame admin tokens delete ID` revokes one at once, and a token made with an
/// expiry stops working by itself. With ``MachineTokens``, the `client_credentials` tokens of
/// machine-to-machine applications are accepted too.
public struct AdminTokens: Sendable {
    let storage: any AdminTokenRepository
    let hasher: SecretHasher
    let random: any RandomSource
    let clock: any SesameClock
    /// Checks machine-to-machine tokens; nil: only `sadm_…` tokens are accepted.
    let machine: MachineTokens?

    /// Creates the service.
    public init(
        storage: any AdminTokenRepository, hasher: SecretHasher, random: any RandomSource,
        clock: any SesameClock = SystemClock()
    ) {
        self.init(storage: storage, hasher: hasher, random: random, clock: clock, machine: nil)
    }

    init(
        storage: any AdminTokenRepository, hasher: SecretHasher, random: any RandomSource, clock: any SesameClock,
        machine: MachineTokens?
    ) {
        (self.storage, self.hasher, self.machine) = (storage, hasher, machine)
        (self.random, self.clock) = (random, clock)
    }

    /// The prefix that tells management tokens from user access tokens.
    public static let prefix = "sadm_"

    /// Creates and stores a token.
    /// - Returns: the token (shown once) and its record.
    /// - Parameters:
    ///   - scopes: what it may do (``ManagementScope``); none: everything.
    ///   - lifetime: seconds it works for; nil: until deleted.
    public func create(
        name: String, scopes: [String] = [], lifetime: TimeInterval? = nil, at now: Date
    ) async throws -> (token: String, record: AdminToken) {
        try Self.validate(scopes: scopes)
        if let lifetime, lifetime <= 0 { throw SesameError.invalidRequest("A token's lifetime must be positive.") }
        let token = Self.prefix + random.token(32)
        let record = AdminToken(
            id: "adm_" + random.hex(8), name: name, tokenHash: hasher.hash(token, purpose: .adminToken), createdAt: now,
            // In whole milliseconds, as stored, so the record shown now is the one listed later.
            scopes: scopes, expiresAt: lifetime.map { Date(epochMilliseconds: now.addingTimeInterval($0).epochMilliseconds) })
        try await storage.createAdminToken(record)
        return (token, record)
    }

    /// The stored token `token` stands for, or nil (unknown, deleted or expired).
    public func authenticate(_ token: String) async throws -> AdminToken? {
        guard token.hasPrefix(Self.prefix), token.utf8.count < 256 else { return nil }
        guard let record = try await storage.adminToken(hashes: hasher.candidates(token, purpose: .adminToken)) else {
            return nil
        }
        if let expiresAt = record.expiresAt, clock.now() >= expiresAt { return nil }
        return record
    }
}
