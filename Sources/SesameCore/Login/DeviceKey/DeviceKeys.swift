import Foundation

/// Device-key login and its management, wired over one storage backend.
public struct DeviceKeys: Sendable {
    /// The login grant and the nonce challenge.
    public let login: DeviceKeyLogin
    /// Register, list and delete device credentials.
    public let credentials: DeviceCredentialService
    /// Management tokens for `/api/v2`.
    public let adminTokens: AdminTokens

    /// Wires the services.
    init(context: LoginContext, tokens: TokenService, machine: MachineTokens? = nil) {
        let (storage, clock, random, settings) = (context.storage, context.clock, context.random, context.settings)
        let admins = AdminTokens(storage: storage, hasher: context.hasher, random: random, clock: clock, machine: machine)
        login = DeviceKeyLogin(context: context)
        credentials = DeviceCredentialService(
            storage: storage, tokens: tokens, admins: admins, random: random, clock: clock, policy: settings.deviceKeys,
            recentLoginWindow: settings.recentLoginWindow, coordinator: context.coordinator)
        adminTokens = admins
    }
}
