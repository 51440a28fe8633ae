import Crypto
public import Foundation
public import Logging
import Synchronization

/// An HMAC key as stored: the secret, and when it starts to hash new secrets.
public struct HMACKeyRecord: Sendable, Equatable {
    public var secret: [UInt8]
    public var createdAt: Date
    /// Until then the key only verifies, so every instance knows it before a secret hashed
    /// under it (a code, a session cookie) reaches one that does not.
    public var activeFrom: Date

    /// Creates a record; without `activeFrom` the key hashes from its creation.
    public init(secret: [UInt8], createdAt: Date, activeFrom: Date? = nil) {
        self.secret = secret
        self.createdAt = createdAt
        self.activeFrom = activeFrom ?? createdAt
    }
}

/// The HMAC keys every instance shares, reloaded from storage now and then (``reload(from:)``)
/// so that a rotation made anywhere reaches every instance without a restart.
///
/// The newest key whose activation has come hashes new secrets and seals new outbox payloads;
/// every key verifies and opens. A key is keyed once here: keying an HMAC was most of the cost
/// of a MAC (``SecretHasher``).
public final class HMACKeys: Sendable {
    struct Entry: Sendable {
        let mac: HMAC<SHA256>
        /// The AES-GCM key ``PayloadSeal`` derives from the secret.
        let sealKey: SymmetricKey
        let activeFrom: Date
    }

    private let entries: Mutex<[Entry]>
    private let clock: any SesameClock

    /// Keys from storage (``KeyRepository/hmacKeys()``), newest activation first.
    public init(_ records: [HMACKeyRecord], clock: any SesameClock = SystemClock()) {
        precondition(!records.isEmpty, "HMACKeys needs at least one key")
        entries = Mutex(Self.entries(records))
        self.clock = clock
    }

    /// Keys that are all active, the first hashing: for tools and tests.
    public convenience init(secrets: [[UInt8]]) {
        self.init(secrets.map { HMACKeyRecord(secret: $0, createdAt: .distantPast) })
    }

    /// The key that hashes and seals now: the first whose activation has come (the oldest when
    /// none has, which only a clock set back can cause).
    var current: Entry {
        let now = clock.now()
        return entries.withLock { entries in entries.first { $0.activeFrom <= now } ?? entries[entries.count - 1] }
    }

    /// Every key, for verifying and opening.
    var all: [Entry] { entries.withLock { $0 } }

    /// Reads the keys again; a failed read keeps the ones held, so an outage changes nothing.
    public func reload(from storage: any KeyRepository) async throws {
        let records = try await storage.hmacKeys()
        guard !records.isEmpty else { return }
        let fresh = Self.entries(records)
        entries.withLock { $0 = fresh }
    }

    /// Reloads the keys every `interval` seconds until the task is cancelled.
    public func refresh(from storage: any KeyRepository, every interval: TimeInterval, logger: Logger) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(interval))
            guard !Task.isCancelled else { return }
            do {
                try await reload(from: storage)
            } catch {
                logger.warning("could not reload HMAC keys; keeping the current ones", metadata: ["error": "\(error)"])
            }
        }
    }

    private static func entries(_ records: [HMACKeyRecord]) -> [Entry] {
        records.map { record in
            Entry(
                mac: HMAC<SHA256>(key: SymmetricKey(data: record.secret)),
                sealKey: PayloadSeal.derive(record.secret), activeFrom: record.activeFrom)
        }
    }
}

/// Rotation of the HMAC keys all instances share (`sesame admin keys rotate-hmac`).
///
/// As with signing keys, a new key is known at once and hashes only after `activateAfter`, by
/// when every instance has reloaded it (every `signing_keys.refresh_interval`). Older keys
/// keep verifying, so codes, sessions, refresh tokens and management tokens hashed under them
/// keep working until they expire; they stay sealed in the database.
public struct HMACKeyRotation: Sendable {
    let storage: any KeyRepository
    let clock: any SesameClock
    let random: any RandomSource

    /// Creates the rotation service.
    public init(storage: any KeyRepository, clock: any SesameClock, random: any RandomSource) {
        self.storage = storage
        self.clock = clock
        self.random = random
    }

    /// Every key, newest activation first, without its secret: when it was made and when it
    /// hashes from.
    public func list() async throws -> [(createdAt: Date, activeFrom: Date)] {
        try await storage.hmacKeys().map { ($0.createdAt, $0.activeFrom) }
    }

    /// Adds a key that verifies now and hashes from `now + activateAfter` seconds.
    /// - Returns: when it starts hashing.
    public func rotate(activateAfter: TimeInterval) async throws -> Date {
        guard activateAfter >= 0 else { throw SesameError.invalidRequest("activate-after must not be negative") }
        let now = clock.now()
        // Strictly after every existing key, so the newest rotation always wins.
        let latest = try await storage.hmacKeys().map(\.activeFrom).max() ?? .distantPast
        let activeFrom = max(now.addingTimeInterval(activateAfter), latest.addingTimeInterval(0.001))
        try await storage.addHMACKey(HMACKeyRecord(secret: random.bytes(32), createdAt: now, activeFrom: activeFrom))
        return activeFrom
    }
}
