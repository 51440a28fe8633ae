import Foundation
import SesameCore
import SesameStorageConformance
import SesameStorageSQL
import Testing

/// Secrets sealed at rest under a master key the database does not hold.
///
/// The attack: someone gets a copy of the database (a backup, a replica, a stolen disk, a
/// support dump) and reads the signing key out of it to mint tokens for any user, or the HMAC
/// key and a client secret to forge what they protect. Sealed, the copy holds none of them.
@Suite("Secrets sealed at rest")
struct SealingTests {
    static let master = MasterKey(encoded: Data(repeating: 7, count: 32).base64EncodedString())!
    static let other = MasterKey(encoded: String(repeating: "ab", count: 32))!
    static let clientSecret = "client-secret-that-must-not-leak-0123456789"

    @Test("every check of the storage contract holds on a sealed database", arguments: StorageConformance.checks)
    func conformance(_ check: ConformanceCheck) async throws {
        let store = try await SQLStorage.sqlite(path: nil)
        defer { Task { try? await store.shutdown() } }
        _ = try await store.unseal(with: Self.master, random: SystemRandomSource())
        try await check.run(store, TestClock())
    }

    @Test("a copy of a sealed database file holds no key or secret in the clear")
    func byteScan() async throws {
        try await withDatabase { path in
            let store = try await SQLStorage.sqlite(path: path)
            #expect(
                try await store.unseal(with: Self.master, random: SystemRandomSource()) == .sealed(masterKeyID: Self.master.id))
            let key = try await writeSecrets(store)
            try await store.shutdown()
            try expectNoSecrets(in: path, pem: key.privateKeyPEM)
        }
    }

    @Test("a database from before sealing is sealed in place once a key is given, and no old copy stays in the file")
    func upgrade() async throws {
        try await withDatabase { path in
            let plain = try await SQLStorage.sqlite(path: path)
            let key = try await writeSecrets(plain)
            try await plain.shutdown()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).range(of: Data("PRIVATE KEY".utf8)) != nil)

            let store = try await SQLStorage.sqlite(path: path)
            _ = try await store.unseal(with: Self.master, random: SystemRandomSource())
            #expect(try await store.signingKeys().map(\.privateKeyPEM) == [key.privateKeyPEM])
            #expect(try await store.application(clientID: "m2m")?.clientSecret == Self.clientSecret)
            #expect(try await store.storedSettings()["email.smtp.password"] == "smtp-password-in-settings")
            try await store.shutdown()
            try expectNoSecrets(in: path, pem: key.privateKeyPEM)
        }
    }

    @Test("a sealed database does not open without its master key, nor with another one")
    func wrongKeys() async throws {
        try await withDatabase { path in
            let store = try await SQLStorage.sqlite(path: path)
            _ = try await store.unseal(with: Self.master, random: SystemRandomSource())
            let key = try await writeSecrets(store)
            try await store.shutdown()

            let reopened = try await SQLStorage.sqlite(path: path)
            await #expect(throws: SealError.missingMasterKey(expected: Self.master.id)) {
                try await reopened.unseal(with: nil, random: SystemRandomSource())
            }
            await #expect(throws: SealError.wrongMasterKey(expected: Self.master.id, given: Self.other.id)) {
                try await reopened.unseal(with: Self.other, random: SystemRandomSource())
            }
            // Without the key nothing sealed is handed out as if it were plaintext.
            await #expect(throws: StorageError.self) { try await reopened.signingKeys() }
            _ = try await reopened.unseal(with: Self.master, random: SystemRandomSource())
            #expect(try await reopened.signingKeys().map(\.privateKeyPEM) == [key.privateKeyPEM])
            try await reopened.shutdown()
        }
    }

    @Test("rotating the master key rewraps the data key: the new key opens, the old one no longer does")
    func rotation() async throws {
        try await withDatabase { path in
            let store = try await SQLStorage.sqlite(path: path)
            _ = try await store.unseal(with: Self.master, random: SystemRandomSource())
            let key = try await writeSecrets(store)
            try await store.rotateMasterKey(from: Self.master, to: Self.other, random: SystemRandomSource())
            // The running instance keeps its data key: no restart is needed.
            #expect(try await store.signingKeys().map(\.privateKeyPEM) == [key.privateKeyPEM])
            try await store.shutdown()

            let reopened = try await SQLStorage.sqlite(path: path)
            await #expect(throws: SealError.self) { try await reopened.unseal(with: Self.master, random: SystemRandomSource()) }
            #expect(
                try await reopened.unseal(with: Self.other, random: SystemRandomSource()) == .sealed(masterKeyID: Self.other.id))
            #expect(try await reopened.hmacSecrets() == [Array(repeating: 9, count: 32)])
            try await reopened.shutdown()
        }
    }

    private func writeSecrets(_ store: SQLStorage) async throws -> SigningKeyRecord {
        let key = try TokenSigner.generateKey(at: Date())
        try await store.addSigningKey(key)
        try await store.addHMACSecret(Array(repeating: 9, count: 32), at: Date())
        try await store.createApplication(
            Application(
                clientID: "m2m", clientSecret: Self.clientSecret, name: "Backend", type: .regular, callbacks: [],
                isDefault: false, createdAt: Date()))
        try await store.updateSettings(set: ["email.smtp.password": "smtp-password-in-settings"], remove: [], at: Date())
        return key
    }

    private func expectNoSecrets(in path: String, pem: String) throws {
        var bytes = Data()
        for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
            bytes.append(try Data(contentsOf: URL(fileURLWithPath: file)))
        }
        let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? pem
        for secret in ["PRIVATE KEY", body, Self.clientSecret, "smtp-password-in-settings"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the database file")
        }
        #expect(bytes.range(of: Data(repeating: 9, count: 32)) == nil, "the HMAC key is in the database file")
    }

    private func withDatabase(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-seal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("sesame.sqlite").path)
    }
}
