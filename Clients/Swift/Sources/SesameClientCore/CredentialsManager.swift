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
    /// Renew this long before the access token expires.
    public static let renewalMargin: TimeInterval = 60

    /// Creates a manager of `store`'s session, renewing through `client`.
    public init(client: SesameClient, store: any CredentialsStore) {
        self.client = client
        self.store = store
    }

    /// Stores the credentials of a new login.
    public func signedIn(_ credentials: Credentials) throws {
        try store.save(StoredSession(domain: client.domain, clientID: client.clientID, credentials: credentials))
    }

    /// Valid credentials: the stored ones, or renewed ones when the access token is about to
    /// expire. - Throws: ``SesameClientError`` (`not signed in` when there is no session).
    public func credentials(now: Date = Date()) async throws -> Credentials {
        guard let session = try store.load() else { throw SesameClientError.notSignedIn }
        if session.credentials.expiresAt.timeIntervalSince(now) > Self.renewalMargin { return session.credentials }
        if let renewal { return try await renewal.value }
        guard let refreshToken = session.credentials.refreshToken else { throw SesameClientError.notSignedIn }
        let task = Task { try await client.renew(refreshToken: refreshToken) }
        renewal = task
        defer { renewal = nil }
        let renewed = try await task.value
        try signedIn(renewed)
        return renewed
    }

    /// Revokes the refresh token (when there is one) and forgets the session. Local state is
    /// cleared even when the server cannot be reached.
    public func signOut() async throws {
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
