import Foundation
public import Logging

/// What operators do to applications, from the CLI (`sesame admin apps …`) and the
/// management API (`/api/v2/clients`): one place for the rules (callback URLs per type, a
/// secret only for confidential apps) and one audit event per change.
public struct ApplicationAdministration: Sendable, OperatorService {
    let context: OperatorContext

    /// Creates the service over `storage`.
    public init(
        storage: any SesameStorage, clock: any SesameClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "sesame")
    ) {
        context = OperatorContext(storage: storage, clock: clock, random: random, logger: logger)
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

    /// A new application of `type` named `name`, set up by `configure`; confidential ones
    /// (regular and machine-to-machine applications, or any set to authenticate with a secret)
    /// get a client secret. Machine-to-machine applications get only `client_credentials`.
    /// - Throws: 400 for settings the type may not have (``validate(_:)``).
    public func create(name: String, type: ApplicationType, configure: (inout Application) throws -> Void = { _ in })
        async throws -> Application
    {
        var application = Application(
            clientID: random.alphanumeric(32), clientSecret: nil, name: name, type: type, callbacks: [],
            grantTypes: type == .nonInteractive ? GrantType.machineDefaults : GrantType.defaults, createdAt: clock.now())
        try configure(&application)
        if application.isConfidential { application.clientSecret = random.token(48) }
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
        let random = random
        let updated = try await notFoundAsError(clientID) {
            try await storage.updateApplication(clientID: clientID) { application in
                try change(&application)
                // An application told to authenticate with a secret gets one.
                if application.isConfidential, application.clientSecret == nil { application.clientSecret = random.token(48) }
                try Self.validate(application)
            }
        }
        await audit.record(.applicationUpdated, client: clientID, detail: updated.name)
        return updated
    }

    /// Gives the application a new secret; the old one stops working at once (Auth0's
    /// `rotate-secret`).
    /// - Throws: 404 for an unknown application.
    public func rotateSecret(_ clientID: String) async throws -> Application {
        let secret = random.token(48)
        let updated = try await notFoundAsError(clientID) {
            try await storage.updateApplication(clientID: clientID) { $0.clientSecret = secret }
        }
        await audit.record(.applicationUpdated, client: clientID, detail: "client secret rotated")
        return updated
    }

    /// Deletes an application and its client grants; its tokens stop working with it.
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
        try validateGrants(application)
        if let problem = application.callbacks.lazy.compactMap({ CallbackURL.problem($0, type: application.type) }).first {
            throw SesameError.invalidRequest(problem)
        }
        // A logout URL is a redirect target like a callback: `javascript:` there runs on our origin.
        if let problem = application.logoutURLs.lazy.compactMap({ CallbackURL.problem($0, type: application.type) }).first {
            throw SesameError.invalidRequest("Logout URL: " + problem)
        }
        // Logout URIs are called by the server or framed by the logout page: https, or http on
        // loopback, never a custom scheme and never a fragment (both specs forbid one).
        for (name, uri) in [
            ("backchannel_logout_uri", application.backchannelLogoutURI),
            ("frontchannel_logout_uri", application.frontchannelLogoutURI),
        ] {
            if let uri, let problem = CallbackURL.problem(uri, type: .regular) {
                throw SesameError.invalidRequest("\(name): " + problem)
            }
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

    /// Grants Sesame knows, and `client_credentials` (or a machine-to-machine type) only for
    /// an application that authenticates with a secret: anyone can present a public client's id.
    static func validateGrants(_ application: Application) throws {
        if let unknown = application.grantTypes.first(where: { !GrantType.known.contains($0) }) {
            throw SesameError.invalidRequest(
                "grant_types: '\(unknown)' is not supported; supported: \(GrantType.known.joined(separator: ", ")).")
        }
        let machine = application.type == .nonInteractive || application.allows(GrantType.clientCredentials)
        if machine, !application.isConfidential {
            throw SesameError.invalidRequest(
                "client_credentials and non_interactive applications need token_endpoint_auth_method client_secret_post or client_secret_basic."
            )
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
