import Foundation
import SesameCore
import SesameStorageSQL
import Testing

/// A small deployment with a row in every table, written through the repository API, and the
/// checks that another store holds the same one.
struct DeploymentFixture {
    /// Whole milliseconds: instants are stored as integer milliseconds.
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    let ana = User.newPasswordless(
        id: "ana0000000000000000000000", connection: Connection(name: "email", strategy: .email),
        identifier: "ana@example.com", at: now)
    let ben = User.newPasswordless(
        id: "ben0000000000000000000000", connection: Connection(name: "sms", strategy: .sms),
        identifier: "+14155550123", at: now.addingTimeInterval(1))
    let app = Application(
        clientID: "client-1", clientSecret: nil, name: "App", type: .native, callbacks: ["https://app.example/cb"],
        isDefault: true, iosBundleIDs: ["com.example.app"], iosTeamID: "TEAM", createdAt: now)
    let passkey = PasskeyCredential(
        id: "cred-1", userID: "ana0000000000000000000000", name: "YubiKey", publicKey: [0, 1, 2, 255, 0],
        algorithm: -7, signCount: 3, backupEligible: true, backedUp: false, format: "packed",
        aaguid: "00000000-0000-0000-0000-000000000000", transports: ["usb"], createdAt: now)
    let device = DeviceCredential(
        id: "dcr_1", userID: "email|ana0000000000000000000000", clientID: "client-1", deviceID: "phone",
        deviceName: "Phone", algorithm: .es256, publicKey: [4, 0, 9], fingerprint: "fp", keyBits: 256, createdAt: now)
    let token = RefreshToken(
        id: "rt-1", familyID: "family-1", tokenHash: Array(repeating: 0, count: 32), clientID: "client-1",
        userID: "email|ana0000000000000000000000", scope: "openid offline_access", audience: nil, createdAt: now,
        expiresAt: now.addingTimeInterval(3600))
    let rotated: RefreshToken = {
        var token = RefreshToken(
            id: "rt-2", familyID: "family-1", tokenHash: Array(repeating: 2, count: 32), clientID: "client-1",
            userID: "email|ana0000000000000000000000", scope: "openid offline_access", audience: nil, createdAt: now,
            expiresAt: now.addingTimeInterval(3600))
        token.dpopThumbprint = "dpop-key-thumbprint"
        return token
    }()
    let code = AuthorizationCode(
        codeHash: [9, 0, 9], clientID: "client-1", userID: "email|ana0000000000000000000000",
        redirectURI: "https://app.example/cb", scope: "openid", nonce: nil, audience: nil, codeChallenge: "c",
        createdAt: now, expiresAt: now.addingTimeInterval(300))
    let challenge = Challenge(
        id: "ch-1", connection: "email", recipient: "ana@example.com", clientID: "client-1", kind: .code,
        secretHash: [7, 0, 7], maxAttempts: 3, createdAt: now, expiresAt: now.addingTimeInterval(180))
    let session = PasskeySession(
        id: "ps-1", sessionHash: [5, 5], ceremony: .registration, clientID: "client-1", connection: "email",
        challenge: [1, 0, 1], pendingUser: nil, createdAt: now, expiresAt: now.addingTimeInterval(300))
    let browser = BrowserSession(
        id: "bs-1", secretHash: [4, 0, 4], userID: "email|ana0000000000000000000000", methods: ["hosted_otp"],
        createdAt: now, authTime: now, lastSeenAt: now, expiresAt: now.addingTimeInterval(86400), ip: "198.51.100.7",
        userAgent: "Firefox")
    let linkRequest = LinkRequest(
        id: "lr-1", pollSecretHash: [1, 0, 1], challengeID: "ch-1", clientID: "client-1", connection: "email",
        recipient: "ana@example.com", matchCode: "07", status: .approved, userID: "email|ana0000000000000000000000",
        createdAt: now, expiresAt: now.addingTimeInterval(900), decidedAt: now)

    /// The master key the deployment's secrets are sealed under.
    static let masterKey = MasterKey(encoded: Data(repeating: 3, count: 32).base64EncodedString())!

    /// Opens the sealed secrets of a store the deployment was copied into.
    static func unseal(_ store: SQLStorage) async throws {
        _ = try await store.unseal(with: masterKey, random: SystemRandomSource())
    }

    /// Writes the deployment into `store`, its secrets sealed.
    func fill(_ store: SQLStorage) async throws {
        let now = Self.now
        try await Self.unseal(store)
        try await store.saveConnection(Connection(name: "email", strategy: .email))
        try await store.saveConnection(Connection(name: "sms", strategy: .sms, codeLength: 8))
        try await store.createApplication(app)
        try await store.createClientGrant(grant)
        try await store.addSigningKey(SigningKeyRecord(kid: "kid-1", privateKeyPEM: "-----BEGIN-----", createdAt: now))
        try await store.addHMACSecret([0, 1, 0, 255], at: now)
        try await store.addHMACSecret([2, 2], at: now)
        try await store.createUser(ana, withPasskey: passkey)
        _ = try await store.recordLogin(ben, at: now.addingTimeInterval(2))
        try await store.saveDeviceCredential(device)
        try await store.createAdminToken(AdminToken(id: "adm_1", name: "ci", tokenHash: [3, 0, 3], createdAt: now))
        try await store.createRefreshToken(token)
        _ = try await store.rotateRefreshToken(hashes: [token.tokenHash], clientID: "client-1", at: now) { _ in rotated }
        try await store.createAuthorizationCode(code)
        try await store.createChallenge(challenge)
        try await store.createPasskeySession(session)
        try await store.createBrowserSession(browser)
        try await store.recordSessionApplication(
            SessionApplication(
                sessionID: browser.id, clientID: "client-1", sid: browser.id, createdAt: now, expiresAt: browser.expiresAt))
        try await store.createLinkRequest(linkRequest)
        try await store.createDeviceNonce(
            hash: [8, 0], clientID: "client-1", createdAt: now, expiresAt: now.addingTimeInterval(60))
        _ = try await store.claimAssertionID([6, 0], expiresAt: now.addingTimeInterval(60), at: now)
        _ = try await store.claimDPoPProof([6, 1], expiresAt: now.addingTimeInterval(60), at: now)
        _ = try await store.hit(key: "start:ip:127.0.0.1", windowStart: now)
        for index in 0..<3 {
            let message = OutboxMessage(
                id: "msg-\(index)", channel: "email", recipient: "ana@example.com", code: "12345\(index)", link: nil,
                subject: "Code", body: "Your code", createdAt: now)
            try await store.addOutboxMessage(message, keep: 100)
        }
        try await store.recordAudit(AuditEvent(type: "login", userID: ana.userID, clientID: "client-1", detail: "{}", at: now))
        try await store.updateSettings(set: ["issuer": "https://login.example.com/"], remove: [], at: now)
        try await store.enqueueDeliveries([delivery])
        try await store.createWebhook(webhook)
        try await store.setMessageTemplate(template)
        try await fillAccessControl(store)
        try await store.createJob(job, input: Data(#"[{"email": "ana@example.com"}]"#.utf8))
    }

    /// An API, a role with a permission on it assigned to Ana, and a permission of her own.
    private func fillAccessControl(_ store: SQLStorage) async throws {
        try await store.createResourceServer(api)
        try await store.createRole(role)
        try await store.addPermissions([permission], to: .role(role.id))
        try await store.addPermissions([permission], to: .user(ana.userID))
        try await store.assignRoles([role.id], toUser: ana.userID)
    }

    let api = ResourceServer(
        id: "0123456789abcdef01234567", identifier: "https://api.example.com", name: "API",
        scopes: [ResourceServerScope(value: "read:things", description: "Read things")], createdAt: Self.now)
    let role = Role(id: "rol_1", name: "reader", description: "Reads", createdAt: Self.now)
    let permission = Permission(resourceServerIdentifier: "https://api.example.com", permissionName: "read:things")

    let grant = ClientGrant(
        id: "cgr_1", clientID: "client-1", audience: "https://login.example.com/api/v2/", scope: ["read:users"],
        createdAt: Self.now)
    let delivery = QueuedDelivery(
        id: "dlv-1", channel: "email", recipient: "ana@example.com", payload: [1, 2, 3],
        deadline: Self.now.addingTimeInterval(300),
        createdAt: Self.now)
    let webhook = WebhookEndpoint(
        id: "wh_1", url: "https://hooks.example.com/sesame", events: ["user.created"], sealedSecret: [4, 5, 6],
        createdAt: Self.now)
    let job = Job(
        id: "job_1", kind: .usersImport, connection: "email", connectionID: "con_1", externalID: nil, upsert: false,
        total: 1, at: Self.now)
    let template = MessageTemplateOverride(
        name: "sms-code.text", language: "fr", scope: .connection("sms"), body: "Code : {{code}}", updatedAt: Self.now)

    /// Checks that `copy` reads back as `original` does, then that its single-use records are
    /// still live there.
    func expectSame(_ copy: SQLStorage, as original: SQLStorage) async throws {
        #expect(try await copy.delivery(id: delivery.id) == delivery)
        #expect(try await copy.webhooks() == [webhook])
        #expect(try await copy.clientGrants(clientID: nil, audience: nil) == [grant])
        #expect(try await copy.messageTemplates() == [template])
        #expect(try await copy.resourceServers() == [api])
        #expect(try await copy.roles() == [role])
        #expect(
            try await copy.effectivePermissions(userID: ana.userID, audience: nil)
                == [UserPermission(permission: permission, roleIDs: [role.id], direct: true)])
        #expect(try await copy.job(id: job.id) == job)
        #expect(try await copy.jobInput(id: job.id) == original.jobInput(id: job.id))
        #expect(try await copy.listUsers(limit: 10, offset: 0) == original.listUsers(limit: 10, offset: 0))
        #expect(try await copy.listApplications() == original.listApplications())
        #expect(try await copy.listConnections() == original.listConnections())
        #expect(try await copy.signingKeys() == original.signingKeys())
        #expect(try await copy.hmacSecrets() == original.hmacSecrets())
        #expect(try await copy.passkeys(userID: ana.id) == [passkey])
        #expect(try await copy.deviceCredentials(userID: nil, clientID: nil) == [device])
        #expect(try await copy.listAdminTokens() == original.listAdminTokens())
        #expect(
            try await copy.recentOutboxMessages(limit: 10, recipient: nil)
                == original.recentOutboxMessages(limit: 10, recipient: nil))
        #expect(try await copy.recentAuditEvents(limit: 10) == original.recentAuditEvents(limit: 10))
        try await expectLive(copy)
    }

    private func expectLive(_ copy: SQLStorage) async throws {
        let later = Self.now.addingTimeInterval(5)
        #expect(try await copy.consumeAuthorizationCode(hashes: [code.codeHash], at: later) == code)
        #expect(try await copy.registerAttempt(connection: "email", recipient: "ana@example.com", at: later)?.id == challenge.id)
        #expect(try await copy.consumePasskeySession(hashes: [session.sessionHash], at: later) == session)
        #expect(try await copy.browserSession(secretHashes: [browser.secretHash]) == browser)
        #expect(try await copy.linkRequest(pollSecretHashes: [linkRequest.pollSecretHash]) == linkRequest)
        #expect(try await copy.consumeDeviceNonce(hashes: [[8, 0]], clientID: "client-1", at: later))
        #expect(try await copy.claimAssertionID([6, 0], expiresAt: later, at: later) == false)
        #expect(try await copy.claimDPoPProof([6, 1], expiresAt: later, at: later) == false)
        // The token's DPoP binding came across: without its key it is refused, and nothing is spent.
        let unproven = try await copy.rotateRefreshToken(
            hashes: [rotated.tokenHash], clientID: "client-1", at: later, reuseInterval: 0, key: .presented(nil)
        ) { $0 }
        #expect(unproven == .boundToAnotherKey)
        #expect(try await copy.hit(key: "start:ip:127.0.0.1", windowStart: Self.now) == 2)
        try await expectRotation(copy, at: later)
    }

    /// The live token rotates; the one it replaced is spent and revokes the family.
    private func expectRotation(_ copy: SQLStorage, at later: Date) async throws {
        var successor = rotated
        (successor.id, successor.tokenHash) = ("rt-3", Array(repeating: 3, count: 32))
        let rotation = try await copy.rotateRefreshToken(hashes: [rotated.tokenHash], clientID: "client-1", at: later) {
            [successor] _ in
            successor
        }
        #expect(rotation != .unknown && rotation != .reused(familyID: "family-1"))
        let reuse = try await copy.rotateRefreshToken(hashes: [token.tokenHash], clientID: "client-1", at: later) { $0 }
        #expect(reuse == .reused(familyID: "family-1"))
    }
}
