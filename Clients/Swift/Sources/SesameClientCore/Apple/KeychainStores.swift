// Apple platforms only: this file is not compiled on Linux, where FileCredentialsStore and
// FileDeviceKeyStore take its place (docs/sdk.md).
#if canImport(Security)
    public import Foundation
    import Security

    /// One generic-password Keychain item holding a JSON document, readable only when the
    /// device is unlocked and never synced or backed up to another device.
    struct KeychainItem: Sendable {
        let service: String
        let account: String

        private var query: [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
        }

        func read() throws -> Data? {
            var query = self.query
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
            return result as? Data
        }

        func write(_ data: Data) throws {
            try delete()
            var item = query
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            let status = SecItemAdd(item as CFDictionary, nil)
            guard status == errSecSuccess else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
        }

        func delete() throws {
            let status = SecItemDelete(query as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else {
                throw NSError(domain: NSOSStatusErrorDomain, code: Int(status))
            }
        }
    }

    /// The session in the Keychain (this device only).
    public struct KeychainCredentialsStore: CredentialsStore {
        let item: KeychainItem

        /// A store under `service` (your app's bundle id, say).
        public init(service: String) {
            item = KeychainItem(service: service, account: "sesame.session")
        }

        public func load() throws -> StoredSession? {
            try item.read().map { try JSONDecoder().decode(StoredSession.self, from: $0) }
        }

        public func save(_ session: StoredSession) throws {
            try item.write(try JSONEncoder().encode(session))
        }

        public func clear() throws {
            try item.delete()
        }
    }

    /// A software device key in the Keychain (this device only), for devices without a
    /// Secure Enclave; prefer `SecureEnclaveDeviceKeyStore` where it is available.
    public struct KeychainDeviceKeyStore: DeviceKeyStore {
        let item: KeychainItem

        /// A store under `service`.
        public init(service: String) {
            self.init(item: KeychainItem(service: service, account: "sesame.device-key"))
        }

        /// A store in `item` (the Secure Enclave store keeps its handles in another item).
        init(item: KeychainItem) {
            self.item = item
        }

        public func load() throws -> DeviceKey? {
            try item.read().map { try JSONDecoder().decode(DeviceKey.self, from: $0) }
        }

        public func save(_ key: DeviceKey) throws {
            try item.write(try JSONEncoder().encode(key))
        }

        public func delete() throws {
            try item.delete()
        }
    }
#endif
