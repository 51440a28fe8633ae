public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a signed-in session is kept between runs of an app.
public protocol CredentialsStore: Sendable {
    /// The stored session, or nil when signed out.
    func load() throws -> StoredSession?
    /// Replaces the stored session.
    func save(_ session: StoredSession) throws
    /// Forgets the session.
    func clear() throws
    /// Whether a session is stored, found without reading its tokens: a Keychain item behind
    /// biometrics answers without a prompt, so a signed-out app asks nobody for Face ID.
    func containsSession() throws -> Bool
}

extension CredentialsStore {
    /// Whether ``load()`` finds a session.
    public func containsSession() throws -> Bool { try load() != nil }
}

/// A session as stored: which server and application it belongs to, and its tokens.
public struct StoredSession: Codable, Sendable, Equatable {
    public var domain: URL
    public var clientID: String
    public var credentials: Credentials

    /// Creates a stored session.
    public init(domain: URL, clientID: String, credentials: Credentials) {
        self.domain = domain
        self.clientID = clientID
        self.credentials = credentials
    }
}

/// Keeps a session's tokens and hands out an access token that works: renewed with the
/// refresh token shortly before it expires, once even when many tasks ask at the same time
/// (a second renewal with the same refresh token would be taken for reuse of a stolen one).
public actor CredentialsManager {
    private let client: SesameClient
    private let store: any CredentialsStore
    private var renewal: Task<Credentials, any Error>?
    /// Bumped by every sign-in and sign-out: a renewal started under an older session must
    /// neither be saved nor handed out, or it would bring a signed-out session back.
    private var epoch = 0
    /// Asked before stored credentials are handed out, when biometrics are enabled.
    private var gate: BiometricGate?
    /// Renew this long before the access token expires.
    public static let renewalMargin: TimeInterval = 60

    /// Creates a manager of `store`'s session, renewing through `client`.
    public init(client: SesameClient, store: any CredentialsStore) {
        self.client = client
        self.store = store
    }

    /// Creates a manager that asks through `biometrics` before handing out tokens.
    public init(client: SesameClient, store: any CredentialsStore, biometrics: BiometricGate) {
        self.client = client
        self.store = store
        gate = biometrics
    }

    /// Asks the person (Face ID, Touch ID, or the device passcode as `gate`'s policy says)
    /// before ``credentials(now:)`` hands out tokens: Auth0.swift's `enableBiometrics`.
    public func enableBiometrics(_ gate: BiometricGate) {
        self.gate = gate
    }

    /// Stores the credentials of a new login.
    public func signedIn(_ credentials: Credentials) throws {
        epoch += 1
        renewal = nil
        try save(credentials)
    }

    /// Valid credentials: the stored ones, or renewed ones when the access token is about to
    /// expire. Concurrent callers share one renewal. With biometrics enabled, the person is
    /// asked first (once for callers that ask together).
    /// - Throws: ``SesameClientError`` (`not signed in` when there is no session, or when it
    ///   was signed out while a renewal was under way).
    public func credentials(now: Date = Date()) async throws -> Credentials {
        guard try store.containsSession() else { throw SesameClientError.notSignedIn }
        let epoch = self.epoch
        if let gate {
            try await gate.authorize()
            // A sign-out during the prompt leaves nothing to hand out.
            try requireSession(since: epoch)
        }
        // Read after the prompt: a Keychain item behind biometrics opens with its context.
        guard let session = try store.load() else { throw SesameClientError.notSignedIn }
        if session.credentials.expiresAt.timeIntervalSince(now) > Self.renewalMargin { return session.credentials }
        return try await renewed(session, epoch: epoch)
    }

    /// The renewal in flight, or a new one when there is none.
    private func renewed(_ session: StoredSession, epoch: Int) async throws -> Credentials {
        if let renewal {
            let renewed = try await renewal.value
            try requireSession(since: epoch)
            return renewed
        }
        guard let refreshToken = session.credentials.refreshToken else { throw SesameClientError.notSignedIn }
        let client = self.client
        let task = Task { try await client.renew(refreshToken: refreshToken) }
        renewal = task
        defer { if self.epoch == epoch { renewal = nil } }
        let renewed = try await task.value
        try requireSession(since: epoch)
        try save(renewed)
        return renewed
    }

    /// Throws when the session was replaced or signed out since `epoch`.
    private func requireSession(since epoch: Int) throws {
        guard self.epoch == epoch else { throw SesameClientError.notSignedIn }
    }

    private func save(_ credentials: Credentials) throws {
        try store.save(StoredSession(domain: client.domain, clientID: client.clientID, credentials: credentials))
    }

    /// Revokes the refresh token (when there is one) and forgets the session. Local state is
    /// cleared even when the server cannot be reached; a renewal under way is discarded.
    public func signOut() async throws {
        epoch += 1
        renewal = nil
        await gate?.invalidate()
        let session = try store.load()
        try store.clear()
        if let refreshToken = session?.credentials.refreshToken { try await client.revoke(refreshToken: refreshToken) }
    }
}

/// A session in a JSON file readable only by its owner (0600), for Linux apps and the CLI.
public struct FileCredentialsStore: CredentialsStore {
    /// The file.
    public let path: String

    /// A store at `path`; its directory is created 0700 when missing.
    public init(path: String) {
        self.path = path
    }

    public func load() throws -> StoredSession? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try JSONDecoder().decode(StoredSession.self, from: data)
    }

    public func save(_ session: StoredSession) throws {
        try PrivateFile.write(try JSONEncoder().encode(session), to: path)
    }

    public func clear() throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }
}
