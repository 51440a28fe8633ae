import Foundation
import Logging

extension PasswordlessLogin {
    /// At most one "someone is guessing your codes" email per address per day, counted in the
    /// database: the warning must not become a way to flood the person's inbox.
    static let attackNoticeRule = RateLimitRule(limit: 1, windowSeconds: 86400)

    /// The wrong-code budget of `recipient` for attempts from `ip`: the source's own budget
    /// under the recipient's ceiling from all sources (``FailureBudget``).
    func failureBudget(_ connection: Connection, _ recipient: String, ip: String?) -> FailureBudget {
        FailureBudget(
            storage: storage, rules: settings.failureBudget, ceiling: settings.failureCeiling,
            key: "\(connection.name):\(recipient)", ip: ip)
    }

    /// A wrong code used up part of the budget: audit it, and tell the person their address is
    /// under attack (their own sign-ins from elsewhere still work, but they should know).
    func budgetSpent(
        _ exhausted: FailureBudget.Exhaustion, connection: Connection, recipient: String, challenge: Challenge, ip: String?
    ) async {
        let scope = exhausted.contains(.ceiling) ? "recipient budget spent by all sources" : "one source's budget spent"
        await coordinator.audit(
            .otpFailureBudgetExhausted, client: challenge.clientID, ip: ip, detail: "\(connection.name) \(scope)")
        do {
            try await sendAttackNotice(connection, recipient, clientID: challenge.clientID)
        } catch {
            coordinator.logger.error("attack notice not queued", metadata: ["error": "\(error)"])
        }
    }

    /// Queues the warning email through the outbox (templates `email-notice.*`), once a day per
    /// address. Only email addresses are warned: a text costs money an attacker would spend.
    private func sendAttackNotice(_ connection: Connection, _ recipient: String, clientID: String) async throws {
        guard connection.strategy == .email else { return }
        let now = clock.now()
        do {
            try await RateLimiter(storage: storage)
                .hit("notice:attack:\(connection.name):\(recipient)", rule: Self.attackNoticeRule, at: now)
        } catch let error as SesameError where error.kind == .tooManyRequests {
            return
        }
        let application = try await storage.application(clientID: clientID)
        let content = MessageContent(
            channel: .email, recipient: recipient, kind: .notice, code: nil, link: nil, clientID: clientID,
            applicationName: application?.name ?? "", applicationLogoURL: application?.logoURL,
            applicationBrandColor: application?.brandColor?.hex, connection: connection.name, lifetimeMinutes: 1)
        try await storage.enqueueDeliveries([try outbox.message(content, deadline: now.addingTimeInterval(86400))])
        await coordinator.audit(
            .addressUnderAttack, client: clientID, detail: "\(connection.name): warned \(recipient) of wrong codes from elsewhere"
        )
        await outbox.queued()
    }
}
