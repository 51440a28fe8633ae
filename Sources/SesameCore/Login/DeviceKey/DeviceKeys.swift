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
    init(
        storage: any SesameStorage, hasher: SecretHasher, clock: any SesameClock, random: any RandomSource,
        settings: LoginSettings, tokens: TokenService, coordinator: LoginCoordinator, machine: MachineTokens? = nil
    ) {
        let admins = AdminTokens(storage: storage, hasher: hasher, random: random, clock: clock, machine: machine)
        login = DeviceKeyLogin(
            storage: storage, hasher: hasher, clock: clock, random: random, settings: settings, coordinator: coordinator)
        credentials = DeviceCredentialService(
            storage: storage, tokens: tokens, admins: admins, random: random, clock: clock, policy: settings.deviceKeys,
            recentLoginWindow: settings.recentLoginWindow, coordinator: coordinator)
        adminTokens = admins
    }
}
