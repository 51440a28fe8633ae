import Foundation

/// The device-credential part of Auth0's Management API: register, list and delete device
/// public keys. Users manage their own keys with their access token; operators manage any
/// with a management token (``AdminTokens``).
public struct DeviceCredentialService: Sendable {
    let storage: any SesameStorage
    let tokens: TokenService
    let admins: AdminTokens
    let random: any RandomSource
    let clock: any SesameClock
    let policy: DeviceKeyPolicy
    let recentLoginWindow: Int
    let coordinator: LoginCoordinator

    /// Identifies the caller from the token of an `Authorization: Bearer` header and checks
    /// it may do `action`: a user's token needs Auth0's scope for it
    /// (`create:current_user_device_credentials`, `read:…`, `delete:…`), and registering
    /// needs a verified address and a recent login, so a token of any scope, a stale one or
    /// one of an unproven account cannot mint a permanent way in.
    /// - Throws: 401 when the token is missing, invalid, expired, or its user is deleted or
    ///   blocked; 403 without the scope; 401 `insufficient_user_authentication` for an old login.
    public func caller(bearerToken token: String?, for action: DeviceCredentialAction) async throws -> ManagementCaller {
        guard let token else { throw SesameError.managementUnauthorized }
        // A `sadm_…` token, or a machine token from `client_credentials`.
        let management = token.hasPrefix(AdminTokens.prefix) ? true : try await admins.isManagementToken(token)
        if management {
            let admin = try await admins.authorize(bearerToken: token, for: action.managementScope)
            return .admin(tokenID: admin.id)
        }
        return try userCaller(try await tokens.authenticate(accessToken: token), for: action)
    }

    /// ``caller(bearerToken:for:)`` for a token presented either way: `Authorization: DPoP`
    /// is a user's DPoP-bound token, checked with its proof.
    public func caller(_ presented: PresentedAccessToken, for action: DeviceCredentialAction) async throws
        -> ManagementCaller
    {
        guard presented.scheme == .dpop else { return try await caller(bearerToken: presented.token, for: action) }
        return try userCaller(try await tokens.authenticate(presented), for: action)
    }

    /// The rules for a user's own token: the action's scope and, to register, a verified
    /// address and a recent login.
    private func userCaller(_ grant: AccessGrant, for action: DeviceCredentialAction) throws -> ManagementCaller {
        try grant.require(scope: action.scope)
        if action == .create {
            try grant.requireVerifiedAddress()
            try grant.requireRecentLogin(within: recentLoginWindow, at: clock.now())
        }
        return .user(userID: grant.user.userID, clientID: grant.clientID)
    }

    /// Registers a key; one already registered for the same user, application and device id
    /// is replaced.
    public func register(_ registration: DeviceCredentialRegistration, by caller: ManagementCaller) async throws
        -> DeviceCredential
    {
        let fields = try RegistrationFields(registration)
        let key = try fields.key(policy: policy)
        let userID = try await owner(registration.userID, caller: caller)
        let clientID = try await application(registration.clientID, caller: caller)
        let credential = DeviceCredential(
            id: "dcr_" + random.hex(12), userID: userID, clientID: clientID, deviceID: fields.deviceID,
            deviceName: fields.deviceName, algorithm: key.algorithm, publicKey: key.spkiDER, fingerprint: key.fingerprint,
            keyBits: key.bits, createdAt: clock.now())
        try await storage.saveDeviceCredential(credential)
        await coordinator.audit(
            .deviceCredentialRegistered, user: userID, client: clientID,
            detail: "\(credential.id) \(key.algorithm.rawValue)-\(key.bits) device \(fields.deviceID)")
        return credential
    }

    /// The credentials of `userID` (every user's for a management token when nil).
    /// - Throws: 403 when a user asks for someone else's.
    public func list(userID: String?, clientID: String?, by caller: ManagementCaller) async throws -> [DeviceCredential] {
        guard case .user(let own, _) = caller else {
            return try await storage.deviceCredentials(userID: userID, clientID: clientID)
        }
        guard userID == nil || userID == own else { throw SesameError.notYourCredentials }
        return try await storage.deviceCredentials(userID: own, clientID: clientID)
    }

    /// Deletes a credential; logins with it fail from then on.
    /// - Throws: 404 when it does not exist or belongs to another user.
    public func delete(id: String, by caller: ManagementCaller) async throws {
        guard let credential = try await storage.deviceCredential(id: id) else { throw SesameError.deviceCredentialNotFound }
        if case .user(let own, _) = caller, credential.userID != own { throw SesameError.deviceCredentialNotFound }
        do {
            try await storage.deleteDeviceCredential(id: id)
        } catch let error as StorageError where error.isNotFound {
            throw SesameError.deviceCredentialNotFound
        }
        await coordinator.audit(.deviceCredentialDeleted, user: credential.userID, client: credential.clientID, detail: id)
    }

    private func owner(_ requested: String?, caller: ManagementCaller) async throws -> String {
        switch caller {
        case .user(let own, _):
            guard requested == nil || requested == own else { throw SesameError.notYourCredentials }
            return own
        case .admin:
            guard let requested else { throw SesameError.invalidRequest("user_id is required with a management token.") }
            guard let (_, id) = User.parse(userID: requested), try await storage.user(id: id) != nil else {
                throw SesameError.invalidRequest("Unknown user_id.")
            }
            return requested
        }
    }

    private func application(_ requested: String?, caller: ManagementCaller) async throws -> String {
        var clientID = requested
        if case .user(_, let tokenClient) = caller {
            // A user's token registers keys only for its own application: a token of app A
            // must not mint a key that signs in to app B.
            guard requested == nil || requested == tokenClient else { throw SesameError.otherApplication }
            clientID = tokenClient
        }
        guard let clientID else { throw SesameError.invalidRequest("client_id is required with a management token.") }
        guard try await storage.application(clientID: clientID) != nil else {
            throw SesameError.invalidRequest("Unknown client_id.")
        }
        return clientID
    }
}

/// The registration's own fields, validated (Auth0: `device_name` non-empty, `type` =
/// `public_key`, `device_id` up to 36 characters, a `value`).
private struct RegistrationFields {
    let deviceName: String
    let deviceID: String
    let value: DeviceCredentialRegistration.Value

    init(_ registration: DeviceCredentialRegistration) throws {
        guard registration.type == "public_key" else { throw SesameError.invalidRequest("type must be public_key.") }
        guard let name = registration.deviceName, (1...128).contains(name.count) else {
            throw SesameError.invalidRequest("device_name is required (1 to 128 characters).")
        }
        // Device ids are vendor UUIDs in practice; a bounded printable token keeps logs and lookups sane.
        guard let deviceID = registration.deviceID, (1...64).contains(deviceID.count),
            deviceID.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline && $0.asciiValue! >= 0x21 })
        else { throw SesameError.invalidRequest("device_id is required (1 to 64 printable characters, no spaces).") }
        guard let value = registration.value else { throw SesameError.invalidRequest("value is required.") }
        (self.deviceName, self.deviceID, self.value) = (name, deviceID, value)
    }

    func key(policy: DeviceKeyPolicy) throws -> DevicePublicKey {
        switch value {
        case .text(let text):
            guard text.utf8.count <= 16384 else { throw SesameError.invalidRequest("value is too long for a public key.") }
            return try DevicePublicKey.parse(text: text, policy: policy)
        case .jwk(let jwk): return try DevicePublicKey.parse(jwk: jwk, policy: policy)
        }
    }
}
