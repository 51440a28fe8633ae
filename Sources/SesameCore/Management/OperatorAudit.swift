public import Logging

/// Audits what an operator changed through a service outside Core (message templates) on
/// the path every other audit event takes (``AuditLog``): fields bounded, metrics counted,
/// webhook calls queued, and a failure to write logged instead of lost.
public struct OperatorAudit: Sendable {
    let log: AuditLog

    /// Creates the audit over `storage`.
    public init(
        storage: any SesameStorage, clock: any SesameClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
        logger: Logger = Logger(label: "sesame")
    ) {
        log = AuditLog(storage: storage, clock: clock, logger: logger, random: random)
    }

    /// Appends an event; a failure to audit is logged, never fatal to the change.
    public func record(_ type: AuditEventType, detail: String) async {
        await log.record(type, detail: detail)
    }
}
