import Foundation

/// First-start setup, idempotent so it can run on every start and on many instances at once.
public struct Bootstrap: Sendable {
    let storage: any SesameStorage
    let clock: any SesameClock
    let random: any RandomSource

    /// Creates the setup helper.
    public init(storage: any SesameStorage, clock: any SesameClock, random: any RandomSource) {
        self.storage = storage
        self.clock = clock
        self.random = random
    }

    /// The HMAC keys, creating the first one if there is none.
    public func hmacKeys() async throws -> [HMACKeyRecord] {
        let existing = try await storage.hmacKeys()
        if !existing.isEmpty { return existing }
        try await storage.addHMACSecret(random.bytes(32), at: clock.now())
        return try await storage.hmacKeys()
    }

    /// The signing keys, creating the first one if there is none.
    public func signingKeys() async throws -> [SigningKeyRecord] {
        let existing = try await storage.signingKeys()
        if !existing.isEmpty { return existing }
        try await storage.addSigningKey(TokenSigner.generateKey(at: clock.now()))
        return try await storage.signingKeys()
    }

    /// Ensures the `email` and `sms` connections exist, then applies `overrides`.
    public func connections(overrides: [ConnectionOverride]) async throws {
        for strategy in [ConnectionStrategy.email, .sms] {
            let name = strategy.rawValue
            let stored = try await storage.connection(name: name)
            let override = overrides.first { $0.name == name } ?? ConnectionOverride(name: name)
            guard stored == nil || !override.isEmpty else { continue }
            try await storage.saveConnection(override.apply(to: stored ?? Connection(name: name, strategy: strategy)))
        }
    }

    /// The default application, created on first start: a public native app whose grants
    /// all work with `client_id` alone. Its callbacks include the issuer's `/welcome` page, so
    /// a first browser sign-in ends on a page that shows who signed in.
    public func defaultApplication(issuer: String) async throws -> Application {
        if let existing = try await storage.listApplications().first(where: \.isDefault) { return existing }
        let welcome = (issuer.hasSuffix("/") ? issuer : issuer + "/") + "welcome"
        var application = Application(
            clientID: random.alphanumeric(32), clientSecret: nil, name: "Default App", type: .native,
            callbacks: ["http://localhost:3000/callback", welcome], isDefault: true, createdAt: clock.now())
        application.logoutURLs = [welcome]
        try await storage.createApplication(application)
        return application
    }
}
