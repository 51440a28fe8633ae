import Hummingbird
import Logging
import NIOCore
import SesameCore

/// The HTTP application for a started runtime.
/// - Parameter onReady: called with the bound port once the server accepts connections.
public func buildApplication(
    _ runtime: SesameRuntime, onReady: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let configuration = runtime.configuration
    return Hummingbird.Application(
        router: buildRouter(runtime.sesame, trustProxy: configuration.trustProxy),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Sesame"),
        onServerRunning: { channel in await onReady(channel.localAddress?.port ?? configuration.port) },
        logger: runtime.logger)
}

/// Every route, behind the error and security-header middleware.
public func buildRouter(_ sesame: Sesame, trustProxy: Bool) -> Router<SesameRequestContext> {
    let router = Router(context: SesameRequestContext.self)
    router.add(middleware: SecurityHeadersMiddleware())
    router.add(middleware: CORSMiddleware(sesame: sesame))
    router.add(middleware: ErrorMiddleware())
    let tokens = TokenController(sesame: sesame, trustProxy: trustProxy)
    tokens.register(on: router)
    LegacyController(sesame: sesame, tokens: tokens).register(on: router)
    PasswordlessController(sesame: sesame, trustProxy: trustProxy).register(on: router)
    MagicLinkController(sesame: sesame, trustProxy: trustProxy).register(on: router)
    AuthorizeController(sesame: sesame, trustProxy: trustProxy).register(on: router)
    OIDCController(sesame: sesame).register(on: router)
    PasskeyController(sesame: sesame, tokens: tokens).register(on: router)
    AppAssociationController(sesame: sesame).register(on: router)
    DeviceKeyController(sesame: sesame, tokens: tokens).register(on: router)
    return router
}
