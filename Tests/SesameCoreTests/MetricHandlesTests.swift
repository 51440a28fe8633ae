import Metrics
import Testing

@testable import SesameCore

/// Handles are kept only once a backend records them; the e2e metrics test
/// (`test_operations.py`) checks the counts a bootstrapped server's kept handles add up to.
@Suite("Metric handles")
struct MetricHandlesTests {
    @Test("before a backend is bootstrapped, every call makes a new handle, so none stays a no-op")
    func nothingKeptWithoutABackend() throws {
        try #require(MetricsSystem.factory is NOOPMetricsHandler, "this test process bootstraps no metrics backend")
        let counters = MetricHandles { Counter(label: $0, dimensions: $1) }
        let first = counters("sesame_test_total", [("kind", "a")])
        #expect(first !== counters("sesame_test_total", [("kind", "a")]))
    }
}
