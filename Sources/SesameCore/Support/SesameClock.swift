public import Foundation

/// The source of the current time for every domain decision (expiry, rate-limit windows,
/// token lifetimes). Injected so tests can move time without sleeping.
public protocol SesameClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The wall clock.
public struct SystemClock: SesameClock {
    /// Creates the wall clock.
    public init() {}

    /// The current instant, from `Date()`.
    public func now() -> Date { Date() }
}

extension Date {
    /// Whole seconds since 1970: tokens carry integer `iat`/`exp`, and storage keeps
    /// instants as integer milliseconds, so the domain rounds once, here.
    public var epochSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }

    /// Milliseconds since 1970, the unit instants are stored in.
    public var epochMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The instant `milliseconds` after 1970.
    public init(epochMilliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(epochMilliseconds) / 1000)
    }
}
