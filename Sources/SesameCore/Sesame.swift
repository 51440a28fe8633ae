import Foundation
public import Logging

/// The domain, wired: every service a transport needs, over one storage backend.
///
/// ```swift
/// let sesame = try await Sesame.bootstrap(storage: store, settings: LoginSettings(issuer: "http://localhost:3000"),
///                                         delivery: delivery)
/// let started = try await sesame.passwordless.start(request)
/// ```
public struct Sesame: Sendable {
    public let storage: any SesameStorage
    public let settings: LoginSettings
    public let clock: any SesameClock
    /// The shared signing keys.
    public let keys: KeyRing
    public let clients: ClientAuthenticator
    let coordinator: LoginCoordinator
    public let passwordless: PasswordlessLogin
    /// Magic links that work across devices, with a match code.
    public let linkRequests: LinkRequests
    public let tokens: TokenService
    /// Magic links and the hosted `/authorize` page: logins that end in a redirect.
    public let redirectLogin: RedirectLogin
    /// Browser sessions of the hosted page: single sign-on, silent authentication, logout.
    public let sessions: BrowserSessions
    /// `/v2/logout` and the OIDC end-session endpoint.
    public let logout: Logout
    /// The hosted login page and the magic-link pages, one step per call.
    public let browserLogin: BrowserLogin
    public let passkeys: PasskeyLogin
    public let passkeyManagement: PasskeyManagement
    /// Auth0's My Account API for passkeys (`/me/v1/authentication-methods`).
    public let myAccountPasskeys: MyAccountPasskeys
    /// Device-key login, device credentials and management tokens.
    public let deviceKeys: DeviceKeys
    /// Removes expired rows; the server runs it in the background.
    public let sweeper: Sweeper
    /// Which browser origins may call the API and run passkey ceremonies.
    public let origins: OriginPolicy
    /// Forgery tokens for the hosted pages' forms.
    public let formTokens: FormTokens
    /// The durable outbox and its worker, which the server runs.
    public let outbox: Outbox
    /// The operators' view of the outbox.
    public let deliveries: DeliveryAdministration
    /// Management tokens for `/api/v2`: `sadm_…` tokens and machine tokens.
    public let adminTokens: AdminTokens
    /// `client_credentials` tokens of machine-to-machine applications.
    public let machineTokens: MachineTokens
    /// Browser sessions as operators see them (`/api/v2/sessions`).
    public let sessionAdministration: SessionAdministration
    /// Refresh tokens as operators see them (`/api/v2/refresh-tokens`).
    public let refreshTokens: RefreshTokenAdministration
    /// What operators do to client grants (`/api/v2/client-grants`).
    public let clientGrants: ClientGrantAdministration
    /// What operators do to APIs (`/api/v2/resource-servers`).
    public let resourceServers: ResourceServerAdministration
    /// What operators do to roles and to the roles and permissions of users (`/api/v2/roles`).
    public let roles: RoleAdministration
    /// What operators do to users (`/api/v2/users`).
    public let users: UserAdministration
    /// Auth0's bulk user jobs (`/api/v2/jobs`) and their worker, which the server runs.
    public let jobs: UserJobs
    /// What operators do to applications (`/api/v2/clients`).
    public let applications: ApplicationAdministration
    /// The audit log as operators read it (`/api/v2/logs`).
    public let auditTrail: AuditTrail
    /// The applications and connections as the public pages read them.
    public let registry: Registry
    /// The HMAC keys every hash and outbox seal uses; the server reloads them in the background
    /// so a rotation reaches every instance (``HMACKeyRotation``).
    public let hmacKeys: HMACKeys

    /// Wires the services over storage that already holds keys and secrets (see
    /// ``bootstrap(storage:settings:delivery:connections:clock:random:logger:)``).
    public init(
        storage: any SesameStorage, settings: LoginSettings, delivery: MessageDelivery, keys: KeyRing,
        hmacKeys: HMACKeys, clock: any SesameClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "sesame"), exportCompression: (any ExportCompression)? = nil
    ) {
        self.hmacKeys = hmacKeys
        let hasher = SecretHasher(ring: hmacKeys)
        let logoutTokens = LogoutTokenHandler(
            applications: storage, keys: keys, issuer: settings.issuer, transport: delivery.logoutTokens, clock: clock)
        let outbox = Self.outbox(
            storage: storage, delivery: delivery, seal: PayloadSeal(keys: hmacKeys), settings: settings.delivery,
            clock: clock, random: random, logger: logger, logoutTokens: logoutTokens)
        let wake: @Sendable () async -> Void = { await outbox.queued() }
        let sessionApplications = SessionApplications(storage: storage, clock: clock, random: random, wake: wake)
        self.outbox = outbox
        self.deliveries = DeliveryAdministration(storage: storage, clock: clock)
        let machineTokens = MachineTokens(
            storage: storage, keys: keys, settings: settings, clock: clock, random: random,
            audit: AuditLog(storage: storage, clock: clock, logger: logger, random: random))
        self.machineTokens = machineTokens
        self.adminTokens = AdminTokens(
            storage: storage, hasher: hasher, random: random, clock: clock, machine: machineTokens)
        self.clientGrants = ClientGrantAdministration(
            storage: storage, clock: clock, random: random, managementAudience: machineTokens.managementAudience, logger: logger)
        self.resourceServers = ResourceServerAdministration(
            storage: storage, clock: clock, random: random, managementAudience: machineTokens.managementAudience,
            myAccountAudience: settings.myAccountAudience, logger: logger)
        self.roles = RoleAdministration(storage: storage, clock: clock, random: random, logger: logger)
        self.users = UserAdministration(storage: storage, clock: clock, random: random, logger: logger, wake: wake)
        self.jobs = UserJobs(
            users: users, logger: logger, links: JobFileLinks(hasher: hasher, issuer: settings.issuer),
            compression: exportCompression)
        self.applications = ApplicationAdministration(storage: storage, clock: clock, random: random, logger: logger)
        self.auditTrail = AuditTrail(storage: storage)
        self.registry = Registry(storage: storage)
        let issuer = TokenIssuer(keys: keys, hasher: hasher, settings: settings, storage: storage, random: random)
        let coordinator = LoginCoordinator(storage: storage, issuer: issuer, clock: clock, logger: logger)
        let context = LoginContext(
            storage: storage, hasher: hasher, clock: clock, random: random, settings: settings, coordinator: coordinator)
        let passwordless = PasswordlessLogin(context: context, delivery: delivery, outbox: outbox)
        let tokens = TokenService(storage: storage, issuer: issuer, coordinator: coordinator, clock: clock)
        self.storage = storage
        self.settings = settings
        self.clock = clock
        self.keys = keys
        self.clients = ClientAuthenticator(storage: storage)
        self.coordinator = coordinator
        self.passwordless = passwordless
        self.linkRequests = LinkRequests(context: context, passwordless: passwordless)
        self.tokens = tokens
        let passkeys = PasskeyLogin(context: context, passwordless: passwordless)
        self.passkeys = passkeys
        self.redirectLogin = RedirectLogin(
            applications: storage, tokens: tokens, coordinator: coordinator, clock: clock,
            sessionApplications: sessionApplications)
        let sessionAdministration = SessionAdministration(
            storage: storage, settings: settings, clock: clock, random: random, logger: logger, wake: wake)
        self.sessionAdministration = sessionAdministration
        self.refreshTokens = RefreshTokenAdministration(storage: storage, clock: clock, logger: logger)
        self.sessions = BrowserSessions(context: context, administration: sessionAdministration)
        self.logout = Logout(applications: storage, sessions: sessions, keys: keys, issuer: settings.issuer)
        self.browserLogin = BrowserLogin(
            redirect: redirectLogin, passwordless: passwordless, linkRequests: linkRequests, passkeys: passkeys,
            sessions: sessions, registry: registry, tokens: tokens, coordinator: coordinator, clock: clock)
        self.passkeyManagement = PasskeyManagement(
            storage: storage, coordinator: coordinator, clock: clock, recentLoginWindow: settings.recentLoginWindow)
        self.myAccountPasskeys = MyAccountPasskeys(passkeys: passkeys, management: passkeyManagement)
        self.origins = OriginPolicy(applications: storage, settings: settings)
        self.formTokens = FormTokens(hasher: hasher, random: random)
        self.sweeper = Sweeper(
            storage: storage, clock: clock, interval: settings.sweepInterval, auditRetention: settings.auditRetention,
            logger: logger)
        self.deviceKeys = DeviceKeys(context: context, tokens: tokens, machine: machineTokens)
    }

    /// Prepares storage on start (first start creates the HMAC secret, the signing key, the
    /// email and sms connections and the default application; each start stores an API for
    /// each `audiences` identifier that has none) and wires the services.
    /// - Parameter connections: connection settings to apply over what is stored.
    public static func bootstrap(
        storage: any SesameStorage, settings: LoginSettings, delivery: MessageDelivery, connections: [ConnectionOverride] = [],
        clock: any SesameClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "sesame"), exportCompression: (any ExportCompression)? = nil
    ) async throws -> Sesame {
        let setup = Bootstrap(storage: storage, clock: clock, random: random)
        let (hmacKeys, signingKeys) = try await storage.withSetupLock {
            let hmacKeys = try await setup.hmacKeys()
            let signingKeys = try await setup.signingKeys()
            try await setup.connections(overrides: connections)
            _ = try await setup.defaultApplication(issuer: settings.issuer)
            return (hmacKeys, signingKeys)
        }
        let keys = try await KeyRing(
            records: signingKeys, storage: storage, clock: clock, refreshInterval: settings.keyRefreshInterval, logger: logger)
        let sesame = Sesame(
            storage: storage, settings: settings, delivery: delivery, keys: keys,
            hmacKeys: HMACKeys(hmacKeys, clock: clock), clock: clock,
            random: random, logger: logger, exportCompression: exportCompression)
        try await sesame.resourceServers.materialise(settings)
        return sesame
    }

    private static func outbox(
        storage: any SesameStorage, delivery: MessageDelivery, seal: PayloadSeal, settings: DeliveryWorkerSettings,
        clock: any SesameClock, random: any RandomSource, logger: Logger, logoutTokens: LogoutTokenHandler
    ) -> Outbox {
        let messages = MessageHandler(delivery: delivery)
        let webhooks = WebhookHandler(storage: storage, seal: seal, transport: delivery.webhooks, clock: clock)
        let handlers: [String: any DeliveryHandler] = [
            "email": messages, "sms": messages, WebhookChannel.name: webhooks, LogoutNotice.channel: logoutTokens,
        ]
        let worker = DeliveryWorker(
            storage: storage, handlers: handlers, seal: seal, clock: clock, random: random, settings: settings,
            logger: logger)
        return Outbox(worker: worker)
    }
}
