import Foundation
public import SesameAPI

/// Asks the person whether it is them before the key signs (Touch ID / Face ID on Apple
/// platforms, ``TerminalPresenceVerifier`` at a terminal).
public protocol UserPresenceVerifier: Sendable {
    /// True when the person confirmed.
    func confirmPresence(reason: String) async throws -> Bool
}

/// TouchIDAuth's flow on Sesame, with its steps and hooks: check presence → a key exists? else
/// generate one and `registerPublicKey` → build the payload (`jwtPayload`) → sign →
/// `authenticate`; any failure goes to `onError` as well as being thrown. ``reset()`` removes
/// the key.
public struct DeviceKeyAuthentication: Sendable {
    /// Registers a new key's public half (PEM) for the device id and answers the credential
    /// (TouchIDAuth's `registerPublicKey`). ``register(accessToken:deviceName:)`` does it with a
    /// signed-in user's token; set this to register from ``start(scope:)`` instead.
    public typealias PublicKeyRegistrar =
        @Sendable (_ publicKeyPEM: String, _ deviceID: String) async throws
        -> DeviceCredentialBody

    let client: SesameClient
    let store: any DeviceKeyStore
    let presence: any UserPresenceVerifier
    /// Called by ``start(scope:)`` when the device has no registered key; nil: no key is an error.
    public var registerPublicKey: PublicKeyRegistrar?
    /// Changes the claims before signing (TouchIDAuth's `jwtPayload`); the defaults are `sub`,
    /// `aud`, `iat`, `exp` (30 s) and `jti`.
    public var jwtPayload: @Sendable ([String: any Sendable]) -> [String: any Sendable] = { $0 }
    /// Sends the signed assertion and answers the tokens (TouchIDAuth's `authenticate`); by
    /// default the JWT-bearer grant of this client.
    public var authenticate: @Sendable (_ assertion: String, _ scope: String) async throws -> Credentials
    /// Told about every failure (TouchIDAuth's `onError`).
    public var onError: @Sendable (any Error) -> Void = { _ in }
    /// The algorithm of a key made here.
    public var algorithm: DeviceKey.Algorithm = .es256

    /// A flow over `client`, keeping the key in `store`, asking `presence` before each use.
    public init(client: SesameClient, store: any DeviceKeyStore, presence: any UserPresenceVerifier) {
        self.client = client
        self.store = store
        self.presence = presence
        authenticate = { assertion, scope in try await client.login(deviceKeyAssertion: assertion, scope: scope) }
    }

    /// Registers this device's key (made now if there is none) for the signed-in user of
    /// `accessToken`. The token needs `create:current_user_device_credentials` and a login of
    /// the last few minutes.
    @discardableResult
    public func register(accessToken: String, deviceName: String) async throws -> DeviceKey {
        try await reporting {
            try await enroll(try store.load() ?? store.makeKey(algorithm)) { pem, deviceID in
                try await client.registerDeviceKey(
                    publicKeyPEM: pem, deviceName: deviceName, deviceID: deviceID, accessToken: accessToken)
            }
        }
    }

    /// Signs in with the device's key, registering a new one through ``registerPublicKey``
    /// when there is none.
    /// - Throws: ``SesameClientError/isNotSignedIn`` when no key is registered and no
    ///   registrar is set.
    public func start(scope: String = SesameClient.defaultScope) async throws -> Credentials {
        try await reporting {
            guard try await presence.confirmPresence(reason: "Sign in to \(client.domain.host ?? "Sesame")") else {
                throw SesameClientError.presenceDeclined
            }
            let key = try await registeredKey()
            guard let userID = key.userID else { throw SesameClientError.notSignedIn }
            let now = Int(Date().timeIntervalSince1970)
            let claims: [String: any Sendable] = [
                "sub": userID, "aud": try await client.issuer(), "iat": now, "exp": now + 30, "jti": UUID().uuidString,
            ]
            let assertion = try key.sign(jwtPayload(claims)) { try store.signature(of: key, over: $0) }
            return try await authenticate(assertion, scope)
        }
    }

    /// Forgets the key (TouchIDAuth's `reset`); its credential stays on the server until deleted.
    public func reset() throws {
        try store.delete()
    }

    /// The stored key when it is registered, else a new one registered now.
    private func registeredKey() async throws -> DeviceKey {
        if let key = try store.load(), key.credentialID != nil { return key }
        guard let registerPublicKey else { throw SesameClientError.notSignedIn }
        return try await enroll(try store.makeKey(algorithm), with: registerPublicKey)
    }

    /// Registers `key` through `registrar` and stores it with its credential.
    private func enroll(_ key: DeviceKey, with registrar: PublicKeyRegistrar) async throws -> DeviceKey {
        var key = key
        let credential = try await registrar(try store.publicKeyPEM(of: key), key.deviceID)
        key.credentialID = credential.id
        key.userID = credential.userID
        try store.save(key)
        return key
    }

    private func reporting<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            onError(error)
            throw error
        }
    }
}

extension SesameClient {
    /// Registers a device's public key for the user of `accessToken` (Auth0's
    /// `POST /api/v2/device-credentials`).
    public func registerDeviceKey(publicKeyPEM: String, deviceName: String, deviceID: String, accessToken: String)
        async throws -> DeviceCredentialBody
    {
        let body: [String: String?] = [
            "device_name": deviceName, "type": "public_key", "value": publicKeyPEM, "device_id": deviceID,
        ]
        return try transport.decode(
            DeviceCredentialBody.self, try await transport.post("/api/v2/device-credentials", body, bearer: accessToken))
    }

    /// Signs in with a device key's signed assertion (the RFC 7523 JWT-bearer grant).
    public func login(deviceKeyAssertion: String, scope: String = defaultScope) async throws -> Credentials {
        try await tokens([
            "grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "client_id": clientID,
            "assertion": deviceKeyAssertion, "scope": scope,
        ])
    }

    /// The server's issuer, from its discovery document (a device assertion's `aud`).
    public func issuer() async throws -> String {
        try await verifier.issuerName()
    }
}

/// Asks `Confirm it's you [y/N]` on the terminal; only `y` or `yes` confirms.
public struct TerminalPresenceVerifier: UserPresenceVerifier {
    /// Creates the verifier.
    public init() {}

    public func confirmPresence(reason: String) async throws -> Bool {
        FileHandle.standardOutput.write(Data("Confirm it's you [y/N] ".utf8))
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
        return answer == "y" || answer == "yes"
    }
}
