import Foundation
import SesameAPI
import SesameWebAuthn

/// Auth0's native Passkey API: `/passkey/register` starts a signup ceremony,
/// `/passkey/challenge` a login ceremony, and the webauthn grant finishes either one.
public struct PasskeyLogin: Sendable, LoginService {
    let context: LoginContext
    /// Sends the holder of a taken address a notice instead of an answer that it is taken.
    let passwordless: PasswordlessLogin

    /// The profile fields `/passkey/register` accepts in `user_profile`.
    static let profileKeys: Set<String> = [
        "email", "phone_number", "username", "name", "given_name", "family_name", "nickname", "picture",
    ]

    /// The longest `user_profile` value stored with a signup.
    static let maxProfileValue = 320

    /// Starts a signup: validates the profile, reserves the new user's id and returns the
    /// creation options. The user is created only when the ceremony finishes.
    ///
    /// The answer is the same whether or not the address has an account (no enumeration), and
    /// so is the finish's: for a taken address no account is made, and its holder gets a
    /// notice instead. Each call stores a session, so calls are limited per IP.
    public func startRegistration(
        application: Application, realm: String?, profile: [String: String], ip: String
    ) async throws -> PasskeyChallenge {
        try application.requireGrant(GrantType.webauthn)
        let connection = try await signupConnection(realm: realm, profile: profile)
        let identifier = try identifier(in: profile, for: connection)
        guard !connection.disableSignup else {
            throw SesameError.accessDenied("Signups are disabled on connection \(connection.name).")
        }
        try await RateLimiter(storage: storage).hit(
            "passkey_register", ip: ip, rule: settings.passkeySignupLimitPerIP, at: clock.now())
        let user = pendingUser(profile, identifier: identifier, connection: connection)
        return try await creationChallenge(.registration, application, connection, user, name: identifier)
    }

    /// A stored ceremony that makes a passkey for `user` under `name`, and its creation options.
    func creationChallenge(
        _ ceremony: PasskeyCeremony, _ application: Application, _ connection: Connection, _ user: User, name: String,
        exclude: [PasskeyRequestOptions.CredentialDescriptor]? = nil
    ) async throws -> PasskeyChallenge {
        let policy = connection.passkeyPolicy
        let relyingParty = try await relyingParties.relyingParty(for: policy)
        let (token, challenge) = try await createSession(ceremony, application, connection, user)
        var options = PasskeyRequestOptions.CreationOptions(
            challenge: Base64URL.encode(challenge), timeout: policy.timeoutMilliseconds,
            rp: .init(id: relyingParty.rpID, name: relyingParty.rpID),
            user: .init(id: Base64URL.encode(Array(user.id.utf8)), name: name, displayName: user.name ?? name),
            pubKeyCredParams: policy.algorithms.map { .init(alg: $0) },
            authenticatorSelection: .init(
                residentKey: policy.residentKey, requireResidentKey: policy.residentKey == "required",
                userVerification: policy.userVerification),
            attestation: policy.attestation)
        options.excludeCredentials = exclude
        return PasskeyChallenge(authSession: token, options: .creation(options))
    }

    /// Starts a login with a discoverable credential: no user is named, so the answer is the
    /// same for everyone.
    public func startAuthentication(application: Application, realm: String?, ip: String) async throws -> PasskeyChallenge {
        try application.requireGrant(GrantType.webauthn)
        let connection = try await passkeyConnection(realm ?? "email")
        try await RateLimiter(storage: storage).hit(
            "passkey_challenge", ip: ip, rule: settings.passkeyChallengeLimitPerIP, at: clock.now())
        let policy = connection.passkeyPolicy
        let rpID = try await relyingParties.relyingParty(for: policy).rpID
        let (token, challenge) = try await createSession(.authentication, application, connection, nil)
        let options = PasskeyRequestOptions.RequestOptions(
            challenge: Base64URL.encode(challenge), timeout: policy.timeoutMilliseconds, rpId: rpID,
            userVerification: policy.userVerification)
        return PasskeyChallenge(authSession: token, options: .request(options))
    }

    var relyingParties: PasskeyRelyingParties { PasskeyRelyingParties(storage: storage, settings: settings) }

    func createSession(
        _ ceremony: PasskeyCeremony, _ application: Application, _ connection: Connection, _ user: User?
    ) async throws -> (token: String, challenge: [UInt8]) {
        let token = random.token(32)
        let challenge = random.bytes(32)
        let now = clock.now()
        let lifetime = Double(connection.passkeyPolicy.timeoutMilliseconds) / 1000 + 60
        try await storage.createPasskeySession(
            PasskeySession(
                id: random.hex(12), sessionHash: hasher.hash(token, purpose: .passkeySession), ceremony: ceremony,
                clientID: application.clientID, connection: connection.name, challenge: challenge, pendingUser: user,
                createdAt: now, expiresAt: now.addingTimeInterval(lifetime)))
        return (token, challenge)
    }

    private func signupConnection(realm: String?, profile: [String: String]) async throws -> Connection {
        if let unknown = profile.keys.first(where: { !Self.profileKeys.contains($0) }) {
            throw SesameError.invalidRequest("user_profile has an unknown field: \(unknown.prefix(64))")
        }
        if let long = profile.first(where: { $0.value.utf8.count > Self.maxProfileValue }) {
            throw SesameError.invalidRequest("user_profile.\(long.key) is longer than \(Self.maxProfileValue) bytes")
        }
        if let realm { return try await passkeyConnection(realm) }
        if profile["email"] != nil { return try await passkeyConnection("email") }
        if profile["phone_number"] != nil { return try await passkeyConnection("sms") }
        throw SesameError.invalidRequest("user_profile must include email or phone_number")
    }

    func passkeyConnection(_ name: String) async throws -> Connection {
        guard let connection = try await storage.connection(name: name), connection.enabled else {
            throw SesameError.invalidRequest("Connection does not exist: \(name)")
        }
        guard connection.passkeyPolicy.enabled else {
            throw SesameError(.notFound, .invalidRequest, "Passkeys are not enabled on connection \(name)")
        }
        return connection
    }

    private func identifier(in profile: [String: String], for connection: Connection) throws -> String {
        let isEmail = connection.strategy == .email
        guard let raw = profile[isEmail ? "email" : "phone_number"] else {
            throw SesameError.invalidRequest(
                "user_profile.\(isEmail ? "email" : "phone_number") is required for realm \(connection.name)")
        }
        let normalized = isEmail ? Identifier.normalizedEmail(raw) : Identifier.normalizedPhone(raw)
        guard let normalized else {
            throw SesameError.invalidRequest(
                isEmail
                    ? "user_profile.email is not a valid email address"
                    : "user_profile.phone_number must be E.164, like +14155550123")
        }
        return normalized
    }

    /// The user a signup will create. The address is not verified by a passkey: it becomes
    /// verified only when a code or link sent to it is used.
    private func pendingUser(_ profile: [String: String], identifier: String, connection: Connection) -> User {
        let now = clock.now()
        var user = User.newPasswordless(id: random.orderedHex(at: now), connection: connection, identifier: identifier, at: now)
        user.emailVerified = false
        user.phoneVerified = false
        if connection.strategy == .email, let phone = profile["phone_number"].flatMap(Identifier.normalizedPhone) {
            user.phoneNumber = phone
        }
        if connection.strategy == .sms, let email = profile["email"].flatMap(Identifier.normalizedEmail) { user.email = email }
        let fullName = [profile["given_name"], profile["family_name"]].compactMap { $0 }.joined(separator: " ")
        user.name = profile["name"].map { String($0.prefix(300)) } ?? (fullName.isEmpty ? user.name : fullName)
        user.nickname = (profile["nickname"] ?? profile["username"]).map { String($0.prefix(300)) } ?? user.nickname
        if let picture = profile["picture"], let url = URL(string: picture), url.scheme == "https" { user.picture = picture }
        return user
    }
}
