import Foundation
import Synchronization

/// Device-key assertions signed before the load, each worker's in its own list.
///
/// An app signs its assertion on its own device; here the load generator signs it on the
/// cores the server is measured on, and a P-256 signature a login was about half the
/// generator's CPU in the device-key benchmark, taken from the server. Signed ahead, the
/// measured seconds hold only what the floor's generator does too: send and read.
final class AssertionStock: Sendable {
    /// The assertions left, and when the oldest of them stop being usable.
    private let lists: Mutex<[[String]]>
    private let usableUntil: ContinuousClock.Instant

    /// How long a stocked assertion is used: the server accepts an assertion for its lifetime
    /// (at most 60 s) plus 30 s of clock skew; a margin is left for the request's own time.
    static let lifetime: Int64 = 60
    static let usable = Duration.seconds(75)

    private init(lists: [[String]], usableUntil: ContinuousClock.Instant) {
        self.lists = Mutex(lists)
        self.usableUntil = usableUntil
    }

    /// Signs `logins` assertions in all, spread evenly over `devices`, on every core.
    static func signed(for devices: [BenchDevice], logins: Int) async throws -> AssertionStock {
        let started = ContinuousClock.now
        let each = (logins + devices.count - 1) / max(devices.count, 1)
        let lists = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            for (index, device) in devices.enumerated() {
                group.addTask { (index, try (0..<each).map { _ in try device.assertion(lifetime: lifetime) }) }
            }
            var lists = [[String]](repeating: [], count: devices.count)
            for try await (index, list) in group { lists[index] = list }
            return lists
        }
        return AssertionStock(lists: lists, usableUntil: started + usable)
    }

    /// The worker's next unused assertion; nil when its list is spent or too old, and the
    /// caller signs one itself.
    func take(_ worker: Int) -> String? {
        guard ContinuousClock.now < usableUntil else { return nil }
        return lists.withLock { $0[worker].popLast() }
    }
}
