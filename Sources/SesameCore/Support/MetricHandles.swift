import Metrics
import Synchronization

/// swift-metrics handles, made once per label and dimensions.
///
/// Making a handle asks the backend every time (Prometheus sanitises the name and labels, then
/// looks the series up in its registry under a lock), and every request and login records a
/// few. Until a backend is bootstrapped nothing is kept: a handle made then would stay a no-op
/// after it. Labels never carry a person's data, so the keys are few; past `limit` handles are
/// made afresh rather than kept.
package final class MetricHandles<Handle: Sendable>: Sendable {
    private let handles = Mutex<[String: Handle]>([:])
    private let make: @Sendable (String, [(String, String)]) -> Handle
    private let limit = 4096

    /// A cache of the handles `make` creates.
    package init(_ make: @escaping @Sendable (_ label: String, _ dimensions: [(String, String)]) -> Handle) {
        self.make = make
    }

    /// The handle for `label` and `dimensions`.
    package func callAsFunction(_ label: String, _ dimensions: [(String, String)]) -> Handle {
        guard !(MetricsSystem.factory is NOOPMetricsHandler) else { return make(label, dimensions) }
        let key = dimensions.reduce(into: label) { key, dimension in key += "\u{0}\(dimension.0)\u{0}\(dimension.1)" }
        if let handle = handles.withLock({ $0[key] }) { return handle }
        // Two requests may make the same handle at once; the backend gives both one series.
        let handle = make(label, dimensions)
        handles.withLock { if $0.count < limit { $0[key] = handle } }
        return handle
    }
}
