import Foundation
public import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
public import SesameCore

/// The HTTP application for a started runtime.
/// - Parameter onReady: called with the bound port once the server accepts connections.
public func buildApplication(
    _ runtime: SesameRuntime, onReady: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let configuration = runtime.configuration
    return Hummingbird.Application(
        router: buildRouter(
            runtime.sesame, proxies: configuration.proxyPolicy, pages: runtime.pages, metricsToken: configuration.metricsToken,
            readiness: runtime.readiness),
        // A connection that has not completed a request within the timeout is closed, so
        // slow-header clients (slowloris) cannot hold connections open; a request must arrive
        // whole within its own deadline (a trickled body is activity to the idle timeout), and
        // one client may hold only so many connections.
        server: .guardedHTTP1(
            configuration: .init(idleTimeout: .seconds(Int64(configuration.httpIdleTimeout))),
            limits: ConnectionLimits(
                requestTimeout: configuration.httpRequestTimeout, perIP: configuration.httpMaxConnectionsPerIP,
                proxies: configuration.proxyPolicy)),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Sesame"),
        services: [
            SweeperService(sweeper: runtime.sesame.sweeper), DeliveryService(worker: runtime.sesame.outbox.worker),
            HMACKeyService(runtime: runtime), JobService(jobs: runtime.sesame.jobs),
        ] + metricsListener(runtime),
        onServerRunning: { channel in await onReady(channel.localAddress?.port ?? configuration.port) },
        eventLoopGroupProvider: .shared(HTTPThreads.group(configuration.httpThreads)),
        logger: runtime.logger)
}

/// Runs the sweeper beside the server, stopping with it.
struct SweeperService: Service, CustomStringConvertible {
    let sweeper: Sweeper
    /// The name in the service group's log lines. Without one the group describes the service
    /// by reflection, a run-time search of every protocol conformance in the binary for each
    /// type it meets, on every start.
    let description = "sweeper"

    func run() async throws {
        await cancelWhenGracefulShutdown { await sweeper.run() }
    }
}

/// Reloads the HMAC keys beside the server, as often as the signing keys, so a key rotated
/// anywhere is known here before it starts hashing.
struct HMACKeyService: Service, CustomStringConvertible {
    let runtime: SesameRuntime
    /// The name in the service group's log lines (``SweeperService/description`` says why).
    let description = "hmac-keys"

    func run() async throws {
        let (keys, storage) = (runtime.sesame.hmacKeys, runtime.storage)
        let (interval, logger) = (runtime.configuration.settings.keyRefreshInterval, runtime.logger)
        await cancelWhenGracefulShutdown { await keys.refresh(from: storage, every: interval, logger: logger) }
    }
}

/// Runs the outbox's delivery worker beside the server, stopping with it: on a graceful
/// shutdown the worker claims nothing more and finishes and records the sends in flight, so a
/// rolling restart sends nothing twice. Only a send still running at `shutdown.timeout` is cut
/// off, and claimed again by an instance once its lease runs out.
struct DeliveryService: Service, CustomStringConvertible {
    let worker: DeliveryWorker
    /// The name in the service group's log lines (``SweeperService/description`` says why).
    let description = "delivery"

    func run() async throws {
        await withGracefulShutdownHandler {
            await worker.run()
        } onGracefulShutdown: {
            worker.stop()
        }
    }
}

/// Runs the bulk user jobs beside the server, stopping with it: on a graceful shutdown the
/// worker ends after its current batch, and the job resumes there on the next claim.
struct JobService: Service, CustomStringConvertible {
    let jobs: UserJobs
    /// The name in the service group's log lines (``SweeperService/description`` says why).
    let description = "jobs"

    func run() async throws {
        await withGracefulShutdownHandler {
            await jobs.run()
        } onGracefulShutdown: {
            jobs.stop()
        }
    }
}

/// Every route, behind the request-log, error and security-header middleware.
/// - Parameter proxies: whose `X-Forwarded-For` / `Forwarded` headers name the client.
/// - Parameter pages: the hosted pages' templates (the shipped ones unless given).
/// - Parameter metricsToken: the bearer token that opens `/metrics` on this router (none: closed).
/// - Parameter readiness: whether `/health/ready` says the instance wants traffic.
public func buildRouter(
    _ sesame: Sesame, proxies: ProxyPolicy, pages: PageTemplates = .shipped, metricsToken: String? = nil,
    readiness: Readiness = Readiness()
) -> Router<SesameRequestContext> {
    let router = Router(context: SesameRequestContext.self)
    router.add(middleware: RequestLogMiddleware(proxies: proxies, random: SystemRandomSource()))
    router.add(middleware: SecurityHeadersMiddleware())
    // Outside CORS: a storage failure during the CORS check still answers 503 in the error shape.
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: CORSMiddleware(origins: sesame.origins))
    TokenController(
        passwordless: sesame.passwordless, linkRequests: sesame.linkRequests, passkeys: sesame.passkeys,
        deviceKeys: sesame.deviceKeys.login,
        tokens: sesame.tokens, machineTokens: sesame.machineTokens, clients: sesame.clients, proxies: proxies,
        refusals: sesame.grantRefusals
    ).register(on: router)
    LegacyController(
        passwordless: sesame.passwordless, deviceKeys: sesame.deviceKeys.login, clients: sesame.clients, proxies: proxies,
        refusals: sesame.grantRefusals
    ).register(on: router)
    PasswordlessController(passwordless: sesame.passwordless, proxies: proxies).register(on: router)
    LinkRequestController(linkRequests: sesame.linkRequests, proxies: proxies).register(on: router)
    let cookie = BrowserCookie("sesame_session", settings: sesame.settings, lifetime: sesame.settings.sessionLifetime)
    let hosted = HostedPages(
        renderer: pages.renderer, forms: FormGuard(tokens: sesame.formTokens, settings: sesame.settings),
        defaultCountry: pages.defaultCountry)
    AssetsController(assets: pages.assets).register(on: router)
    let linkCookie = BrowserCookie("sesame_link", settings: sesame.settings)
    let loginPages = BrowserLoginPages(
        pages: hosted, sessionCookie: cookie, linkCookie: linkCookie,
        stepCookie: StepCookie(settings: sesame.settings, tokens: sesame.formTokens),
        declines: PasskeyDeclines(settings: sesame.settings, tokens: sesame.formTokens, clock: sesame.clock),
        clock: sesame.clock, proxies: proxies)
    MagicLinkController(browserLogin: sesame.browserLogin, pages: loginPages).register(on: router)
    AuthorizeController(browserLogin: sesame.browserLogin, linkRequests: sesame.linkRequests, pages: loginPages)
        .register(on: router)
    SessionController(
        sessions: sesame.sessions, logout: sesame.logout, tokens: sesame.tokens, cookie: cookie, pages: hosted,
        proxies: proxies
    ).register(on: router)
    WelcomeController(settings: sesame.settings, applications: sesame.registry, tokens: sesame.tokens, pages: hosted)
        .register(on: router)
    OIDCController(settings: sesame.settings, keys: sesame.keys, tokens: sesame.tokens).register(on: router)
    OperationsController(
        storage: sesame.storage, clock: sesame.clock, metricsToken: metricsToken, openAPI: { OpenAPIDocument.data },
        readiness: readiness
    ).register(on: router)
    PasskeyController(
        passkeys: sesame.passkeys, management: sesame.passkeyManagement, tokens: sesame.tokens, clients: sesame.clients,
        proxies: proxies
    ).register(on: router)
    MyAccountController(myAccount: sesame.myAccountPasskeys, tokens: sesame.tokens, proxies: proxies).register(on: router)
    AppAssociationController(applications: sesame.registry).register(on: router)
    DeviceKeyController(deviceKeys: sesame.deviceKeys, clients: sesame.clients, proxies: proxies).register(on: router)
    ManagementController(
        adminTokens: sesame.adminTokens, users: sesame.users, applications: sesame.applications, auditTrail: sesame.auditTrail,
        tokens: sesame.tokens, clientGrants: sesame.clientGrants, connections: sesame.registry,
        sessions: sesame.sessionAdministration, refreshTokens: sesame.refreshTokens, resourceServers: sesame.resourceServers,
        roles: sesame.roles, jobs: sesame.jobs
    ).register(on: router)
    return router
}

/// `metrics.port`: a second listener that serves only `/metrics`, without a token, on
/// `metrics.host` (loopback unless told otherwise), for a Prometheus beside the instance.
func metricsListener(_ runtime: SesameRuntime) -> [any Service] {
    let configuration = runtime.configuration
    guard let port = configuration.metricsPort else { return [] }
    let router = Router()
    let (storage, clock) = (runtime.sesame.storage, runtime.sesame.clock)
    router.get("/metrics") { _, _ in OperationsController.exposition(await ServerMetrics.scrape(storage, clock: clock)) }
    return [
        Hummingbird.Application(
            router: router, configuration: .init(address: .hostname(configuration.metricsHost, port: port)),
            logger: runtime.logger)
    ]
}

/// The OpenAPI document shipped in the resources, read once, when first asked for.
enum OpenAPIDocument {
    static let data: Data? = try? Data(contentsOf: PageRenderer.bundled.appendingPathComponent("openapi.json"))
}
