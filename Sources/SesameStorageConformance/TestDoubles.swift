import Foundation
public import SesameCore
import Synchronization

/// A repeatable stand-in for the CSPRNG, for tests only: the same seed gives the same codes,
/// ids and tokens, so a test can say which code a start produced instead of hedging.
/// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and good enough for test data; never
/// for secrets.
public final class SeededRandomSource: RandomSource {
    private let state: Mutex<UInt64>

    /// Creates a source whose sequence is fixed by `seed`.
    public init(seed: UInt64 = 1) {
        state = Mutex(seed)
    }

    public func bytes(_ count: Int) -> [UInt8] {
        state.withLock { state in
            var result: [UInt8] = []
            result.reserveCapacity(count + 8)
            while result.count < count {
                state &+= 0x9E37_79B9_7F4A_7C15
                var mixed = state
                mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
                mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
                mixed ^= mixed >> 31
                withUnsafeBytes(of: mixed.littleEndian) { result.append(contentsOf: $0) }
            }
            return Array(result.prefix(count))
        }
    }
}

/// A message provider that keeps what it is given, or fails on demand like a provider
/// that is down.
public final class CapturingSender: MessageSender {
    private let messages = Mutex<[OutgoingMessage]>([])
    private let failure = Mutex<DeliveryError?>(nil)
    /// Whether sends wait (a slow provider), and how many have waited so far.
    private let holding = Mutex<(on: Bool, held: Int)>((false, 0))

    /// Creates an empty sender.
    public init() {}

    public func send(_ message: OutgoingMessage) async throws {
        let waits = holding.withLock { state -> Bool in
            guard state.on else { return false }
            state.held += 1
            return true
        }
        while waits && holding.withLock({ $0.on }) { try await Task.sleep(for: .milliseconds(5)) }
        if let failure = failure.withLock({ $0 }) { throw failure }
        messages.withLock { $0.append(message) }
    }

    /// Makes sends wait until ``release()``, like a provider that stalls.
    public func hold() {
        holding.withLock { $0.on = true }
    }

    /// Lets the waiting sends through.
    public func release() {
        holding.withLock { $0.on = false }
    }

    /// How many sends have waited on ``hold()`` so far.
    public var held: Int { holding.withLock { $0.held } }

    /// Makes every send fail with `error` (nil: succeed again).
    public func fail(with error: DeliveryError?) {
        failure.withLock { $0 = error }
    }

    /// Everything sent to `recipient`, oldest first.
    public func sent(to recipient: String) -> [OutgoingMessage] {
        messages.withLock { $0.filter { $0.recipient == recipient } }
    }

    /// How many messages were sent.
    public var count: Int { messages.withLock { $0.count } }
}
