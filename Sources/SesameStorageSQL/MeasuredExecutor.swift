import Dispatch
import Metrics
import SQLKit

/// Times every storage operation and counts those in flight (swift-metrics), around the
/// backend's executor: `sesame_storage_operation_duration_seconds{kind,backend}` and
/// `sesame_storage_operations_in_flight{backend}`, which against the pool size shows how
/// close PostgreSQL is to making requests wait.
struct MeasuredExecutor: SQLExecutor {
    let base: any SQLExecutor
    private let inFlight: Meter
    private let timers: [String: Metrics.Timer]

    init(_ base: any SQLExecutor) {
        self.base = base
        let backend = base.flavor == .sqlite ? "sqlite" : "postgres"
        inFlight = Meter(label: "sesame_storage_operations_in_flight", dimensions: [("backend", backend)])
        timers = Dictionary(
            uniqueKeysWithValues: ["read", "write", "transaction"].map { kind in
                (
                    kind,
                    Metrics.Timer(
                        label: "sesame_storage_operation_duration_seconds", dimensions: [("kind", kind), ("backend", backend)])
                )
            })
    }

    var flavor: SQLFlavor { base.flavor }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await measured("read") { try await base.read(body) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await measured("write") { try await base.write(body) }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await measured("transaction") { try await base.transaction(body) }
    }

    func bulkTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await measured("transaction") { try await base.bulkTransaction(body) }
    }

    func withExclusiveLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await base.withExclusiveLock(body)
    }

    func compact() async throws {
        try await base.compact()
    }

    func shutdown() async throws {
        try await base.shutdown()
    }

    private func measured<T>(_ kind: String, _ operation: () async throws -> T) async throws -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        inFlight.increment()
        defer {
            inFlight.decrement()
            timers[kind]?.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
        }
        return try await operation()
    }
}
