public import Foundation
public import SesameCore
import Synchronization

/// A clock that only moves when told to, for expiry and rate-limit tests without sleeping.
public final class TestClock: SesameClock {
    private let current: Mutex<Date>

    /// Creates a clock at `start` (a fixed, whole-second instant by default).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = Mutex(start)
    }

    /// The current test instant.
    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward.
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
