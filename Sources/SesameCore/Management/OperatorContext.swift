import Logging

/// What the operators' services (users, applications, webhooks) are built on: storage, the
/// injected clock and randomness, and the audit log every change of theirs is written to.
struct OperatorContext: Sendable {
    let storage: any SesameStorage
    let clock: any SesameClock
    let random: any RandomSource
    let audit: AuditLog

    init(storage: any SesameStorage, clock: any SesameClock, random: any RandomSource, logger: Logger) {
        self.storage = storage
        self.clock = clock
        self.random = random
        audit = AuditLog(storage: storage, clock: clock, logger: logger, random: random)
    }
}

/// A service built on an ``OperatorContext``: its parts read as the service's own.
protocol OperatorService {
    var context: OperatorContext { get }
}

extension OperatorService {
    var storage: any SesameStorage { context.storage }
    var clock: any SesameClock { context.clock }
    var random: any RandomSource { context.random }
    var audit: AuditLog { context.audit }
}
