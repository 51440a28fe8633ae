public import Foundation
public import Logging
import Synchronization

/// The signing keys every instance shares, reloaded from storage now and then so that a
/// rotation made anywhere (another instance, the `sesame admin keys` command) reaches this
/// instance without a restart.
///
/// Requests never wait for each other here: when a reload is due, one caller reads the keys
/// while the others keep signing with the signer they have. A failed reload (the database
/// is down) keeps the current signer, so an outage never takes the JWKS with it.
public final class KeyRing: Sendable {
    private struct State {
        var signer: TokenSigner
        var records: [SigningKeyRecord]
        var loadedAt: Date
        var reloading = false
    }

    private let state: Mutex<State>
    private let storage: any KeyRepository
    private let clock: any SesameClock
    private let refreshInterval: TimeInterval
    private let logger: Logger

    /// Loads `records` (as read from `storage`) and reloads them every `refreshInterval` seconds.
    /// - Throws: when no key is active now or a key does not parse.
    public init(
        records: [SigningKeyRecord], storage: any KeyRepository, clock: any SesameClock, refreshInterval: TimeInterval,
        logger: Logger = Logger(label: "sesame.keys")
    ) async throws {
        let now = clock.now()
        let signer = try await TokenSigner(records: records, at: now)
        self.state = Mutex(State(signer: signer, records: records, loadedAt: now))
        self.storage = storage
        self.clock = clock
        self.refreshInterval = refreshInterval
        self.logger = logger
    }

    /// The signer for this moment.
    public func signer() async -> TokenSigner {
        let now = clock.now()
        let (current, due) = state.withLock { state -> (TokenSigner, Bool) in
            let stale = now.timeIntervalSince(state.loadedAt) >= refreshInterval
            let changing = state.signer.nextChange.map { now >= $0 } ?? false
            guard stale || changing, !state.reloading else { return (state.signer, false) }
            state.reloading = true
            return (state.signer, true)
        }
        guard due else { return current }
        return await reload(at: now, keeping: current)
    }

    private func reload(at now: Date, keeping current: TokenSigner) async -> TokenSigner {
        let previous = state.withLock { $0.records }
        do {
            let records = try await storage.signingKeys()
            let unchanged = records == previous && !(current.nextChange.map { now >= $0 } ?? false)
            let signer = unchanged ? current : try await TokenSigner(records: records, at: now)
            if signer.currentKID != current.currentKID {
                logger.info("signing with a new key", metadata: ["kid": "\(signer.currentKID)"])
            }
            state.withLock { $0 = State(signer: signer, records: records, loadedAt: now) }
            return signer
        } catch {
            logger.warning("could not reload signing keys; keeping the current ones", metadata: ["error": "\(error)"])
            state.withLock {
                $0.loadedAt = now
                $0.reloading = false
            }
            return current
        }
    }
}
