public import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Whether this instance wants traffic: false from the first moment of a shutdown, so
/// `/health/ready` tells the load balancer to stop sending before the listener closes.
public final class Readiness: Sendable {
    private let draining = Atomic<Bool>(false)

    /// Ready until ``startDraining()``.
    public init() {}

    /// Whether a shutdown has begun.
    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Marks the instance as leaving.
    public func startDraining() {
        draining.store(true, ordering: .relaxed)
    }
}

/// The first step of a graceful shutdown: on SIGTERM it marks the instance not ready and
/// keeps serving for `shutdown.delay`, the time a load balancer needs to see that and stop
/// sending; only then does the HTTP server stop accepting and drain.
struct DrainService: Service {
    let readiness: Readiness
    let delay: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        readiness.startDraining()
        logger.notice("shutting down: /health/ready answers 503; still serving for \(delay)")
        try? await Task.sleep(for: delay)
    }
}

/// Runs `app` until SIGTERM or SIGINT, then stops in order: not ready (and still serving
/// for `shutdown.delay`), stop accepting and finish the requests in flight, stop the
/// workers; all within `shutdown.timeout`, after which what is left is cancelled.
public func runUntilStopped(_ app: some ApplicationProtocol, runtime: SesameRuntime) async throws {
    let configuration = runtime.configuration
    var group = ServiceGroupConfiguration(
        // Named, as the group would otherwise describe each service by reflection on every
        // start: a search of every protocol conformance in the binary for each type it meets.
        services: [
            .init(service: app, serviceName: "http"),
            .init(
                service: DrainService(
                    readiness: runtime.readiness, delay: .seconds(configuration.shutdownDelay), logger: runtime.logger),
                successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "drain"),
        ],
        gracefulShutdownSignals: [.sigterm, .sigint], logger: runtime.logger)
    group.maximumGracefulShutdownDuration = .seconds(configuration.shutdownTimeout)
    try await ServiceGroup(configuration: group).run()
}
