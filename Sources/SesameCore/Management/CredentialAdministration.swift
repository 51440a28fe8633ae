import Foundation
public import Logging

/// What an operator does to a user's ways in (`sesame admin passkeys …`, `sesame admin
/// devices …`): disable, enable or delete a passkey, delete a device credential. Each change
/// is audited, so "who removed my passkey?" has an answer.
public struct CredentialAdministration: Sendable {
    let storage: any SesameStorage
    let audit: AuditLog

    /// Creates the service over `storage`.
    public init(storage: any SesameStorage, clock: any SesameClock = SystemClock(), logger: Logger = Logger(label: "sesame")) {
        self.storage = storage
        audit = AuditLog(storage: storage, clock: clock, logger: logger)
    }

    /// Stops a passkey from signing in (`true`) or lets it again (`false`); it is kept.
    /// - Throws: 404 `not_found` for an unknown id.
    @discardableResult
    public func setPasskeyDisabled(_ id: String, _ disabled: Bool) async throws -> PasskeyCredential {
        let passkey = try await notFoundAsError("passkey \(id)") {
            try await storage.updatePasskey(id: id) { $0.disabled = disabled }
        }
        await audit.record(disabled ? .passkeyDisabled : .passkeyEnabled, user: passkey.userID, detail: "\(id) by an operator")
        return passkey
    }

    /// Deletes a passkey; it can never sign in again.
    public func deletePasskey(_ id: String) async throws {
        guard let passkey = try await storage.passkey(id: id) else { throw Self.notFound("passkey \(id)") }
        try await notFoundAsError("passkey \(id)") { try await storage.deletePasskey(id: id) }
        await audit.record(.passkeyDeleted, user: passkey.userID, detail: "\(id) by an operator")
    }

    /// Deletes a device credential; its key can never sign in again.
    public func deleteDeviceCredential(_ id: String) async throws {
        guard let credential = try await storage.deviceCredential(id: id) else { throw Self.notFound("device credential \(id)") }
        try await notFoundAsError("device credential \(id)") { try await storage.deleteDeviceCredential(id: id) }
        await audit.record(
            .deviceCredentialDeleted, user: credential.userID, client: credential.clientID, detail: "\(id) by an operator")
    }

    private static func notFound(_ what: String) -> SesameError {
        SesameError(.notFound, .notFound, "No \(what).")
    }

    /// Runs `body`, turning storage's `notFound` (a row deleted in between) into a 404.
    private func notFoundAsError<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StorageError where error == .notFound() {
            throw Self.notFound(what)
        }
    }
}
