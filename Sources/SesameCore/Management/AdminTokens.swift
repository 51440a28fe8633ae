public import Foundation

/// Management tokens for `/api/v2`, for operators and back ends.
///
/// `sesame admin tokens create --name ci --json` prints a `sadm_…` token once; send it as
/// `Authorization: Bearer sadm_…`. Only its HMAC is stored, so a database leak does not leak
/// tokens; `sesame admin tokens delete ID` revokes one at once. With ``MachineTokens``, the
/// `client_credentials` tokens of machine-to-machine applications are accepted too.
public struct AdminTokens: Sendable {
    let storage: any AdminTokenRepository
    let hasher: SecretHasher
    let random: any RandomSource
    /// Checks machine-to-machine tokens; nil: only `sadm_…` tokens are accepted.
    let machine: MachineTokens?

    /// Creates the service.
    public init(storage: any AdminTokenRepository, hasher: SecretHasher, random: any RandomSource) {
        self.init(storage: storage, hasher: hasher, random: random, machine: nil)
    }

    init(storage: any AdminTokenRepository, hasher: SecretHasher, random: any RandomSource, machine: MachineTokens?) {
        self.storage = storage
        self.hasher = hasher
        self.random = random
        self.machine = machine
    }

    /// The prefix that tells management tokens from user access tokens.
    public static let prefix = "sadm_"

    /// Creates and stores a token.
    /// - Returns: the token (shown once) and its record.
    /// - Parameter scopes: what it may do (``ManagementScope``); none: everything.
    public func create(name: String, scopes: [String] = [], at now: Date) async throws -> (token: String, record: AdminToken) {
        try Self.validate(scopes: scopes)
        let token = Self.prefix + random.token(32)
        let record = AdminToken(
            id: "adm_" + random.hex(8), name: name, tokenHash: hasher.hash(token, purpose: .adminToken), createdAt: now,
            scopes: scopes)
        try await storage.createAdminToken(record)
        return (token, record)
    }

    /// The stored token `token` stands for, or nil.
    public func authenticate(_ token: String) async throws -> AdminToken? {
        guard token.hasPrefix(Self.prefix), token.utf8.count < 256 else { return nil }
        return try await storage.adminToken(hashes: hasher.candidates(token, purpose: .adminToken))
    }
}
