import Crypto
import Foundation
import Metrics
public import Prometheus
import SesameCore
import Synchronization

/// The process's Prometheus registry, behind swift-metrics: Core, storage and the HTTP
/// middleware record through swift-metrics; `/metrics` writes the registry out in the text
/// format, after reading the gauges that come from the database.
public enum ServerMetrics {
    /// Where every metric of the process is kept.
    public static let registry = PrometheusCollectorRegistry()
    private static let bootstrapped = Mutex(false)

    /// Makes swift-metrics record into ``registry``; later calls do nothing (swift-metrics
    /// may be bootstrapped once per process).
    public static func bootstrap() {
        let first = bootstrapped.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        var factory = PrometheusMetricsFactory(registry: registry)
        let fast: [Duration] = [.microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5)]
        factory.defaultDurationHistogramBuckets = fast + factory.defaultDurationHistogramBuckets
        MetricsSystem.bootstrap(factory)
        // Prometheus's info-metric idiom: a constant 1 whose labels name what runs.
        Gauge(label: "sesame_build_info", dimensions: [("version", BuildInfo.version), ("commit", BuildInfo.commit)])
            .record(1)
    }

    /// The text exposition, with the outbox and signing-key gauges read now.
    static func scrape(_ storage: any SesameStorage, clock: any SesameClock) async -> String {
        let now = clock.now()
        if let pending = try? await storage.pendingDeliveries() {
            Gauge(label: "sesame_delivery_queue_depth").record(pending.count)
            Gauge(label: "sesame_delivery_queue_oldest_age_seconds")
                .record(pending.oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0)
        }
        if let keys = try? await storage.signingKeys() {
            let signing = keys.filter { $0.retiredAt == nil && $0.activeFrom <= now }.max { $0.activeFrom < $1.activeFrom }
            Gauge(label: "sesame_signing_key_age_seconds").record(signing.map { now.timeIntervalSince($0.createdAt) } ?? 0)
        }
        return registry.emitToString()
    }

    /// Whether `presented` is the metrics token, compared in constant time.
    static func authorized(_ presented: String?, token: String) -> Bool {
        guard let presented else { return false }
        let digest = { (text: String) in Data(SHA256.hash(data: Data(text.utf8))) }
        return digest(presented).withUnsafeBytes { a in
            digest(token).withUnsafeBytes { b in zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0 }
        }
    }
}
