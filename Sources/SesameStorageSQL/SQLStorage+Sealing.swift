import Foundation
import SQLKit
public import SesameCore
import Synchronization

/// The seal a storage uses for its secrets, set once the master key has opened the data key.
final class SealHolder: Sendable {
    private let seal = Mutex<SecretSeal?>(nil)

    var current: SecretSeal? { seal.withLock { $0 } }

    func set(_ value: SecretSeal) { seal.withLock { $0 = value } }
}

/// Whether a database's secrets are sealed, and under which master key.
public enum SealingState: Sendable, Equatable {
    /// Nothing is sealed: no master key was ever given.
    case unsealed
    /// Sealed under the master key with this id.
    case sealed(masterKeyID: String)
}

extension SQLStorage {
    /// The columns whose values are sealed, by their context name.
    enum SealedColumn {
        static let signingKey = "signing_keys.private_key_pem"
        static let hmacSecret = "hmac_secrets.secret"
        static let clientSecret = "applications.client_secret"
        static let setting = "settings.value"
    }

    /// Whether the database is sealed, without opening anything (for messages and `--verbose`).
    public func sealingState() async throws -> SealingState {
        try await executor.read { db in
            let row = try await db.raw("SELECT master_key_id FROM sealing_keys WHERE id = 'data'").first()
            return try row.map { .sealed(masterKeyID: try $0.string("master_key_id")) } ?? .unsealed
        }
    }

    /// Opens the database's secrets with `master`, sealing them first when they are not yet:
    /// a new database, or one from before sealing (whose plaintext secrets are then sealed in
    /// place and, on SQLite, the file rewritten so no old copy stays in a free page).
    ///
    /// Without a master key an unsealed database stays as it is; a sealed one cannot be used.
    /// - Throws: ``SealError`` for a missing or wrong master key.
    public func unseal(with master: MasterKey?, random: any RandomSource) async throws -> SealingState {
        let stored = try await executor.read { db in
            try await db.raw("SELECT wrapped_key, master_key_id FROM sealing_keys WHERE id = 'data'").first().map {
                (wrapped: try $0.bytes("wrapped_key"), keyID: try $0.string("master_key_id"))
            }
        }
        guard let master else {
            if let stored { throw SealError.missingMasterKey(expected: stored.keyID) }
            return .unsealed
        }
        if let stored {
            sealHolder.set(try SecretSeal.unwrap(stored.wrapped, under: master, storedKeyID: stored.keyID))
        } else {
            try await createSeal(under: master, random: random)
        }
        // Also seals what an older binary wrote in plaintext during a rolling upgrade.
        if try await sealPlaintext() > 0 { try await executor.compact() }
        return .sealed(masterKeyID: master.id)
    }

    /// Rewraps the data key under `new` (master key rotation): every secret stays as it is,
    /// so instances that hold the data key keep working, and the old master key no longer
    /// opens the database. An unsealed database is sealed under `old` first.
    public func rotateMasterKey(from old: MasterKey, to new: MasterKey, random: any RandomSource) async throws {
        _ = try await unseal(with: old, random: random)
        guard let seal = sealHolder.current else { throw SealError.missingMasterKey(expected: old.id) }
        let wrapped = try seal.rewrapped(under: new)
        try await executor.write { db in
            try await db.raw(
                "UPDATE sealing_keys SET wrapped_key = \(bind: Data(wrapped)), master_key_id = \(bind: new.id) WHERE id = 'data'"
            ).run()
        }
    }

    private func createSeal(under master: MasterKey, random: any RandomSource) async throws {
        let (seal, wrapped) = try SecretSeal.create(under: master, random: random)
        // Instances starting together race to create the key: the first insert wins, and the
        // others read it back and unwrap it.
        let winner = try await executor.transaction { db in
            try await db.raw(
                """
                INSERT INTO sealing_keys (id, wrapped_key, master_key_id, created_at)
                VALUES ('data', \(bind: Data(wrapped)), \(bind: master.id), \(bind: Date().sqlValue))
                ON CONFLICT (id) DO NOTHING
                """
            ).run()
            let row = try await db.raw("SELECT wrapped_key, master_key_id FROM sealing_keys WHERE id = 'data'").first()
            guard let row else { throw StorageError.unavailable("sealing key missing after insert") }
            return (wrapped: try row.bytes("wrapped_key"), keyID: try row.string("master_key_id"))
        }
        sealHolder.set(
            winner.wrapped == wrapped ? seal : try SecretSeal.unwrap(winner.wrapped, under: master, storedKeyID: winner.keyID))
    }

    /// Seals every secret still stored in plaintext, in one transaction; returns how many.
    private func sealPlaintext() async throws -> Int {
        guard let seal = sealHolder.current else { return 0 }
        return try await executor.bulkTransaction { db in
            var sealed = 0
            for row in try await db.raw("SELECT kid, private_key_pem FROM signing_keys").all() {
                let pem = try row.string("private_key_pem")
                guard !SecretSeal.isSealed(pem) else { continue }
                let value = try seal.sealText(pem, context: SealedColumn.signingKey)
                try await db.raw(
                    "UPDATE signing_keys SET private_key_pem = \(bind: value) WHERE kid = \(bind: try row.string("kid"))"
                ).run()
                sealed += 1
            }
            for row in try await db.raw("SELECT seq, secret FROM hmac_secrets").all() {
                let secret = try row.bytes("secret")
                guard !SecretSeal.isSealed(secret) else { continue }
                let value = Data(try seal.seal(secret, context: SealedColumn.hmacSecret))
                try await db.raw("UPDATE hmac_secrets SET secret = \(bind: value) WHERE seq = \(bind: try row.int("seq"))").run()
                sealed += 1
            }
            sealed += try await Self.sealTexts(
                table: "applications", key: "client_id", column: "client_secret", context: SealedColumn.clientSecret, seal, db)
            sealed += try await Self.sealTexts(
                table: "settings", key: "key", column: "value", context: SealedColumn.setting, seal, db)
            return sealed
        }
    }

    private static func sealTexts(
        table: String, key: String, column: String, context: String, _ seal: SecretSeal, _ db: any SQLDatabase
    ) async throws -> Int {
        var sealed = 0
        let rows = try await db.raw("SELECT \(ident: key), \(ident: column) FROM \(ident: table)").all()
        for row in rows {
            guard let value = try row.optionalString(column), !SecretSeal.isSealed(value) else { continue }
            try await db.raw(
                """
                UPDATE \(ident: table) SET \(ident: column) = \(bind: try seal.sealText(value, context: context))
                WHERE \(ident: key) = \(bind: try row.string(key))
                """
            ).run()
            sealed += 1
        }
        return sealed
    }

    /// `value` as stored in the column `context`: sealed once the database has a seal.
    func sealed(_ value: String, _ context: String) throws -> String {
        try sealHolder.current?.sealText(value, context: context) ?? value
    }

    /// `value` as stored in the column `context`: sealed once the database has a seal.
    func sealed(_ value: [UInt8], _ context: String) throws -> [UInt8] {
        try sealHolder.current?.seal(value, context: context) ?? value
    }

    /// A stored value of the column `context` in plaintext.
    /// - Throws: when it is sealed and the storage was not unsealed.
    func opened(_ stored: String, _ context: String) throws -> String {
        guard SecretSeal.isSealed(stored) else { return stored }
        guard let seal = sealHolder.current else { throw StorageError.unavailable("\(context) is sealed; no master key given") }
        return try seal.openText(stored, context: context)
    }

    /// A stored value of the column `context` in plaintext.
    func opened(_ stored: [UInt8], _ context: String) throws -> [UInt8] {
        guard SecretSeal.isSealed(stored) else { return stored }
        guard let seal = sealHolder.current else { throw StorageError.unavailable("\(context) is sealed; no master key given") }
        return try seal.open(stored, context: context)
    }
}
