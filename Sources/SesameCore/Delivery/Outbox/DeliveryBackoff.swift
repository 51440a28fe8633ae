public import Foundation

/// When a failed delivery is tried again: exponential backoff with jitter, so a provider
/// that comes back is not hit by every instance's queue at the same moment.
public struct DeliveryBackoff: Sendable, Equatable {
    /// The delay after the first failure, before jitter.
    public var base: TimeInterval
    /// The longest delay, before jitter.
    public var cap: TimeInterval

    /// Creates a backoff: 2 s doubling up to 5 minutes unless told otherwise.
    public init(base: TimeInterval = 2, cap: TimeInterval = 300) {
        self.base = base
        self.cap = cap
    }

    /// The delay after `attempts` failed sends: half the exponential step plus up to as much
    /// again at random ("equal jitter": never immediate, never in lockstep).
    public func delay(afterAttempts attempts: Int, random: any RandomSource) -> TimeInterval {
        let step = min(cap, base * pow(2, Double(max(0, min(attempts, 30) - 1))))
        return step / 2 + step / 2 * random.unitInterval()
    }
}

extension RandomSource {
    /// A uniform value in [0, 1).
    func unitInterval() -> Double {
        let value = bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(value >> 11) / Double(UInt64(1) << 53)
    }
}
