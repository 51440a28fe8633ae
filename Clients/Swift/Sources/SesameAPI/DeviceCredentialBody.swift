/// A device credential as `/api/v2/device-credentials` shows it (Auth0's fields, plus the
/// key's algorithm and fingerprint).
public struct DeviceCredentialBody: Codable, Sendable, Equatable {
    public var id: String
    public var deviceName: String
    public var deviceID: String
    /// Always `public_key`.
    public var type: String
    public var userID: String
    public var clientID: String
    /// `ES256` or `RS256`: the only algorithm the key's JWTs may use.
    public var alg: String
    /// TouchIDAuth's MD5 key fingerprint (`AB:CD:…`), the legacy JWT's `sub`.
    public var fingerprint: String
    public var createdAt: String

    enum CodingKeys: String, CodingKey {
        case id, deviceName = "device_name", deviceID = "device_id", type, userID = "user_id", clientID = "client_id"
        case alg, fingerprint, createdAt = "created_at"
    }

    /// Creates a body.
    public init(
        id: String, deviceName: String, deviceID: String, type: String = "public_key", userID: String, clientID: String,
        alg: String, fingerprint: String, createdAt: String
    ) {
        self.id = id
        self.deviceName = deviceName
        self.deviceID = deviceID
        self.type = type
        self.userID = userID
        self.clientID = clientID
        self.alg = alg
        self.fingerprint = fingerprint
        self.createdAt = createdAt
    }
}

/// `GET /api/v2/device-credentials?include_totals=true`: Auth0's paged envelope.
public struct DeviceCredentialPageBody: Codable, Sendable, Equatable {
    public var start: Int
    public var limit: Int
    public var total: Int
    public var deviceCredentials: [DeviceCredentialBody]

    enum CodingKeys: String, CodingKey {
        case start, limit, total, deviceCredentials = "device_credentials"
    }

    /// Creates a page.
    public init(start: Int, limit: Int, total: Int, deviceCredentials: [DeviceCredentialBody]) {
        self.start = start
        self.limit = limit
        self.total = total
        self.deviceCredentials = deviceCredentials
    }
}

/// `POST /device-key/challenge`: a one-use nonce for the device's next assertion.
public struct DeviceKeyChallengeBody: Codable, Sendable, Equatable {
    public var nonce: String
    public var expiresIn: Int

    enum CodingKeys: String, CodingKey {
        case nonce, expiresIn = "expires_in"
    }

    /// Creates a body.
    public init(nonce: String, expiresIn: Int) {
        self.nonce = nonce
        self.expiresIn = expiresIn
    }
}
