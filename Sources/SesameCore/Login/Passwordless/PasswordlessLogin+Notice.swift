import Foundation
import Logging

extension PasswordlessLogin {
    /// Tells the holder of an email address that someone finished a passkey signup with it,
    /// instead of telling the signup that the address is taken (which would make the signup an
    /// oracle of who has an account). The message is a sign-in code through the outbox, as
    /// `/passwordless/start` sends it: its text says that someone asked to sign in with the
    /// address and can be ignored, and a holder who did try to sign up can sign in with it.
    ///
    /// Nothing here may fail the signup's answer, which must look like a new account's: the
    /// per-recipient start limit, a missing provider, or a storage failure only skip the
    /// message. Text messages are not sent (they cost money per message, and a passkey signup
    /// is no proof of a person); the attempt is audited either way.
    func sendSignupNotice(to recipient: String, connection: Connection, application: Application, ip: String?) async {
        await coordinator.audit(
            .passkeyFailed, client: application.clientID, ip: ip,
            detail: "\(connection.name) signup for an address that has an account: no account made, holder notified")
        guard connection.strategy == .email, delivery.email.isConfigured else { return }
        do {
            try await queueNotice(to: recipient, connection: connection, application: application, ip: ip)
        } catch {
            coordinator.logger.warning("signup notice not queued: \(error)")
        }
    }

    private func queueNotice(to recipient: String, connection: Connection, application: Application, ip: String?) async throws {
        let now = clock.now()
        try await RateLimiter(storage: storage).hit(
            "start:to:\(connection.name):\(recipient)", rule: settings.startLimitPerRecipient, at: now)
        let secret = random.digits(max(connection.codeLength, Connection.minimumCodeLength))
        let challenge = Challenge(
            id: random.orderedHex(at: now), connection: connection.name, recipient: recipient, clientID: application.clientID,
            kind: .code, secretHash: hasher.hash(secret, purpose: .challenge), maxAttempts: connection.maxAttempts,
            createdAt: now, expiresAt: now.addingTimeInterval(Double(connection.codeLifetime)))
        let request = PasswordlessStartRequest(
            clientID: application.clientID, clientSecret: nil, connection: connection.name, email: recipient,
            phoneNumber: nil, send: SendMode.code.rawValue, ip: ip ?? "")
        let content = try content(
            secret: secret, mode: .code, recipient: recipient, connection: connection, application: application,
            request: request, lifetime: connection.codeLifetime)
        let gate = DeliveryGate(connection: connection.name, identifier: recipient, signupDisabled: connection.disableSignup)
        let log = AuditLog(storage: storage, clock: clock, logger: coordinator.logger)
        let sent = log.event(
            .codeSent, client: application.clientID, ip: ip, detail: "\(connection.name) to \(recipient)", at: now)
        try await storage.createChallenge(
            challenge, delivery: try outbox.message(content, deadline: challenge.expiresAt), audit: sent, gate: gate)
        await log.published(sent)
        await outbox.queued()
    }
}
