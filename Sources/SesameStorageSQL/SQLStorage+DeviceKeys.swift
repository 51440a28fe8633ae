public import Foundation
import SQLKit
public import SesameCore

extension SQLStorage: DeviceCredentialRepository {
    public func saveDeviceCredential(_ credential: DeviceCredential) async throws {
        try await executor.write { db in
            // One upsert on (user, application, device): a device never has two live keys, even
            // when two registrations race on different instances (a delete-then-insert would
            // let both inserts through under PostgreSQL's read-committed isolation).
            try await db.raw(
                """
                INSERT INTO device_credentials (id, user_id, client_id, device_id, device_name, algorithm, public_key,
                fingerprint, key_bits, created_at) VALUES (\(bind: credential.id), \(bind: credential.userID),
                \(bind: credential.clientID), \(bind: credential.deviceID), \(bind: credential.deviceName),
                \(bind: credential.algorithm.rawValue), \(bind: Data(credential.publicKey)), \(bind: credential.fingerprint),
                \(bind: credential.keyBits), \(bind: credential.createdAt.sqlValue))
                ON CONFLICT (user_id, client_id, device_id) DO UPDATE SET id = excluded.id,
                device_name = excluded.device_name, algorithm = excluded.algorithm, public_key = excluded.public_key,
                fingerprint = excluded.fingerprint, key_bits = excluded.key_bits, created_at = excluded.created_at
                """
            ).run()
        }
    }

    public func deviceCredential(id: String) async throws -> DeviceCredential? {
        try await executor.read { db in
            try await db.raw("SELECT * FROM device_credentials WHERE id = \(bind: id)").first().map(Self.deviceCredential(from:))
        }
    }

    public func deviceCredential(id: String, withUser userID: String) async throws -> (DeviceCredential, User?)? {
        let row = try await executor.read { db in
            try await db.raw(
                """
                SELECT c.*, \(unsafeRaw: Self.ownerColumns) FROM device_credentials c
                LEFT JOIN users u ON u.id = \(bind: userID) WHERE c.id = \(bind: id)
                """
            ).first()
        }
        return try row.map { row in
            let owner = try row.decodeNil(column: "owner_id") ? nil : Self.user(from: row, prefix: "owner_")
            return (try Self.deviceCredential(from: row), owner)
        }
    }

    /// A user's columns beside a credential's, named apart from the credential's own `user_id`.
    private static let ownerColumns = userColumns(of: "u", prefix: "owner_")

    public func deviceCredentials(userID: String?, clientID: String?) async throws -> [DeviceCredential] {
        try await executor.read { db in
            var query = db.select().column("*").from("device_credentials")
            if let userID { query = query.where("user_id", .equal, userID) }
            if let clientID { query = query.where("client_id", .equal, clientID) }
            return try await query.orderBy("created_at").orderBy("id").all().map(Self.deviceCredential(from:))
        }
    }

    public func deleteDeviceCredential(id: String) async throws {
        let deleted = try await executor.write { db in
            try await db.raw("DELETE FROM device_credentials WHERE id = \(bind: id) RETURNING id").all().count
        }
        if deleted == 0 { throw StorageError.notFound("device credential \(id)") }
    }

    public func deleteDeviceCredentials(userID: String) async throws -> Int {
        try await executor.write { db in
            try await db.raw("DELETE FROM device_credentials WHERE user_id = \(bind: userID) RETURNING id").all().count
        }
    }

    static func deviceCredential(from row: any SQLRow) throws -> DeviceCredential {
        guard let algorithm = DeviceKeyAlgorithm(rawValue: try row.string("algorithm")) else {
            throw StorageError.unavailable("unknown device key algorithm")
        }
        return DeviceCredential(
            id: try row.string("id"), userID: try row.string("user_id"), clientID: try row.string("client_id"),
            deviceID: try row.string("device_id"), deviceName: try row.string("device_name"), algorithm: algorithm,
            publicKey: try row.bytes("public_key"), fingerprint: try row.string("fingerprint"),
            keyBits: try row.int("key_bits"), createdAt: try row.date("created_at"))
    }
}

extension SQLStorage: DeviceAssertionRepository {
    public func claimAssertionID(_ hash: [UInt8], expiresAt: Date, at now: Date) async throws -> Bool {
        try await claimOnce(in: "device_assertions", hash, expiresAt: expiresAt, at: now)
    }

    public func recordLogin(
        _ newUser: User, at now: Date, audit: LoginAudit, claimingAssertionID hash: [UInt8], expiresAt: Date
    ) async throws -> User? {
        let claim = Self.claim(in: "device_assertions", hash, expiresAt, at: now)
        return try await recordLogin(newUser, at: now, audit: audit, claim: claim)
    }

    /// Claims `hash` in a single-use table of `(hash, expires_at)` rows until `expiresAt`.
    func claimOnce(in table: String, _ hash: [UInt8], expiresAt: Date, at now: Date) async throws -> Bool {
        let claim = Self.claim(in: table, hash, expiresAt, at: now)
        return try await executor.write { db in try await db.raw(claim).first() != nil }
    }

    /// The statement that claims `hash` in `table`, returning a row only when it wins. One
    /// statement decides: a new id is inserted, a live one is left alone (no row returned), an
    /// expired one is taken over. No read-then-write window to race in.
    static func claim(in table: String, _ hash: [UInt8], _ expiresAt: Date, at now: Date) -> SQLQueryString {
        """
        INSERT INTO \(ident: table) (hash, expires_at) VALUES (\(bind: Data(hash)), \(bind: expiresAt.sqlValue))
        ON CONFLICT (hash) DO UPDATE SET expires_at = excluded.expires_at
        WHERE \(ident: table).expires_at <= \(bind: now.sqlValue)
        RETURNING expires_at
        """
    }

    public func createDeviceNonce(hash: [UInt8], clientID: String, createdAt: Date, expiresAt: Date) async throws {
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO device_nonces (hash, client_id, created_at, expires_at) VALUES (\(bind: Data(hash)),
                \(bind: clientID), \(bind: createdAt.sqlValue), \(bind: expiresAt.sqlValue))
                """
            ).run()
        }
    }

    public func consumeDeviceNonce(hashes: [[UInt8]], clientID: String, at now: Date) async throws -> Bool {
        try await executor.write { db in
            for hash in hashes {
                let row = try await db.raw(
                    """
                    UPDATE device_nonces SET consumed_at = \(bind: now.sqlValue) WHERE hash = \(bind: Data(hash))
                    AND client_id = \(bind: clientID) AND consumed_at IS NULL AND expires_at > \(bind: now.sqlValue)
                    RETURNING hash
                    """
                ).first()
                if row != nil { return true }
            }
            return false
        }
    }

    public func deleteExpiredDeviceAssertions(before date: Date) async throws -> Int {
        try await executor.transaction { db in
            let ids = try await db.raw(
                "DELETE FROM device_assertions WHERE expires_at < \(bind: date.sqlValue) RETURNING expires_at"
            ).all().count
            let nonces = try await db.raw(
                "DELETE FROM device_nonces WHERE expires_at < \(bind: date.sqlValue) RETURNING expires_at"
            ).all().count
            return ids + nonces
        }
    }
}

extension SQLStorage: AdminTokenRepository {
    public func createAdminToken(_ token: AdminToken) async throws {
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO admin_tokens (id, name, token_hash, created_at, scopes, expires_at) VALUES (\(bind: token.id),
                \(bind: token.name), \(bind: Data(token.tokenHash)), \(bind: token.createdAt.sqlValue),
                \(bind: token.scopes.joined(separator: " ")), \(bind: token.expiresAt?.sqlValue))
                """
            ).run()
        }
    }

    public func adminToken(hashes: [[UInt8]]) async throws -> AdminToken? {
        try await executor.read { db in
            for hash in hashes {
                if let row = try await db.raw("SELECT * FROM admin_tokens WHERE token_hash = \(bind: Data(hash))").first() {
                    return try Self.adminToken(from: row)
                }
            }
            return nil
        }
    }

    public func listAdminTokens() async throws -> [AdminToken] {
        try await executor.read { db in
            try await db.raw("SELECT * FROM admin_tokens ORDER BY created_at, id").all().map(Self.adminToken(from:))
        }
    }

    public func deleteAdminToken(id: String) async throws {
        let deleted = try await executor.write { db in
            try await db.raw("DELETE FROM admin_tokens WHERE id = \(bind: id) RETURNING id").all().count
        }
        if deleted == 0 { throw StorageError.notFound("admin token \(id)") }
    }

    private static func adminToken(from row: any SQLRow) throws -> AdminToken {
        AdminToken(
            id: try row.string("id"), name: try row.string("name"), tokenHash: try row.bytes("token_hash"),
            createdAt: try row.date("created_at"), scopes: try row.string("scopes").split(separator: " ").map(String.init),
            expiresAt: try row.optionalDate("expires_at"))
    }
}
