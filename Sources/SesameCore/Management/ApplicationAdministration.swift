import Foundation
public import Logging

/// What operators do to applications, from the CLI (`sesame admin apps …`) and the
/// management API (`/api/v2/clients`): one place for the rules (callback URLs per type, a
/// secret only for confidential apps) and one audit event per change.
public struct ApplicationAdministration: Sendable {
    let storage: any SesameStorage
    let clock: any SesameClock
    let random: any RandomSource
    let audit: AuditLog

    /// Creates the service over `storage`.
    public init(
        storage: any SesameStorage, clock: any SesameClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "sesame")
    ) {
        self.storage = storage
        self.clock = clock
        self.random = random
        audit = AuditLog(storage: storage, clock: clock, logger: logger, random: random)
    }

    /// Every application.
    public func list() async throws -> [Application] {
        try await storage.listApplications()
    }

    /// The application with `clientID`.
    /// - Throws: 404 for an unknown one.
    public func application(_ clientID: String) async throws -> Application {
        guard let application = try await storage.application(clientID: clientID) else { throw Self.notFound(clientID) }
        return application
    }

    /// A new application of `type` named `name`, set up by `configure`; regular (server-side)
    /// applications get a client secret.
    /// - Throws: 400 for settings the type may not have (``validate(_:)``).
    public func create(name: String, type: ApplicationType, configure: (inout Application) throws -> Void = { _ in })
        async throws -> Application
    {
        var application = Application(
            clientID: random.alphanumeric(32), clientSecret: type == .regular ? random.token(48) : nil, name: name,
            type: type, callbacks: [], createdAt: clock.now())
        try configure(&application)
        try Self.validate(application)
        try await storage.createApplication(application)
        await audit.record(.applicationCreated, client: application.clientID, detail: "\(type.rawValue) \(name)")
        return application
    }

    /// Changes an application with `change`, checked as on create.
    /// - Throws: 404 for an unknown one; 400 as ``create(name:type:configure:)``.
    public func update(_ clientID: String, _ change: @escaping @Sendable (inout Application) throws -> Void) async throws
        -> Application
    {
        let updated = try await notFoundAsError(clientID) {
            try await storage.updateApplication(clientID: clientID) { application in
                try change(&application)
                try Self.validate(application)
            }
        }
        await audit.record(.applicationUpdated, client: clientID, detail: updated.name)
        return updated
    }

    /// Deletes an application; its tokens stop working with it.
    /// - Throws: 404 for an unknown one.
    public func delete(_ clientID: String) async throws {
        try await notFoundAsError(clientID) { try await storage.deleteApplication(clientID: clientID) }
        await audit.record(.applicationDeleted, client: clientID, detail: "by an operator")
    }

    /// The rules every stored application meets: a name; callbacks its type may use
    /// (``CallbackURL``), and the same rules for logout URLs, where the browser is sent too;
    /// absolute origins; an https logo.
    public static func validate(_ application: Application) throws {
        guard !application.name.trimmingCharacters(in: .whitespaces).isEmpty, application.name.count <= 200 else {
            throw SesameError.invalidRequest("name must be 1 to 200 characters.")
        }
        if let problem = application.callbacks.lazy.compactMap({ CallbackURL.problem($0, type: application.type) }).first {
            throw SesameError.invalidRequest(problem)
        }
        // A logout URL is a redirect target like a callback: `javascript:` there runs on our origin.
        if let problem = application.logoutURLs.lazy.compactMap({ CallbackURL.problem($0, type: application.type) }).first {
            throw SesameError.invalidRequest("Logout URL: " + problem)
        }
        for url in application.allowedOrigins {
            guard let components = URLComponents(string: url), let scheme = components.scheme, !scheme.isEmpty,
                components.host != nil || !["http", "https"].contains(scheme)
            else { throw SesameError.invalidRequest("'\(url)' is not an absolute URL.") }
        }
        if let logo = application.logoURL,
            URLComponents(string: logo).map({ $0.scheme == "https" && $0.host?.isEmpty == false }) != true
        {
            throw SesameError.invalidRequest("logo_uri must be an https URL.")
        }
    }

    private static func notFound(_ clientID: String) -> SesameError {
        SesameError(.notFound, .notFound, "No application has the client_id \(clientID).")
    }

    /// Runs `body`, turning storage's `notFound` into a 404.
    private func notFoundAsError<T>(_ clientID: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StorageError where error.isNotFound {
            throw Self.notFound(clientID)
        }
    }
}
