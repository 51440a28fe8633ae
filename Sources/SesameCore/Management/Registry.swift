/// The applications and connections as the public pages read them (which channels the
/// hosted page offers, which apps a site association names): reading only, so a page that
/// needs a list is not handed the storage.
public struct Registry: Sendable {
    let storage: any ApplicationRepository & ConnectionRepository

    /// Creates the reader over `storage`.
    public init(storage: any ApplicationRepository & ConnectionRepository) {
        self.storage = storage
    }

    /// Every application.
    public func applications() async throws -> [Application] {
        try await storage.listApplications()
    }

    /// Every connection, by name.
    public func connections() async throws -> [Connection] {
        try await storage.listConnections()
    }

    /// The connection named `name`, if there is one.
    public func connection(name: String) async throws -> Connection? {
        try await storage.connection(name: name)
    }
}
