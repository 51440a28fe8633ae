// Apple platforms only: this file is not compiled on Linux, where FileCredentialsStore and
// FileDeviceKeyStore take its place (docs/sdk.md).
#if canImport(Security)
    public import Foundation
    import Security

    /// One generic-password Keychain item holding a JSON document, never synced or backed up
    /// to another device; optionally shared with an access group (app extensions) and behind
    /// biometrics.
    struct KeychainItem: Sendable {
        let service: String
        let account: String
        var accessGroup: String?
        var accessibility = KeychainAccessibility.whenUnlockedThisDeviceOnly
        /// Biometrics on the item itself: without them the Keychain will not hand it out.
        var protection: KeychainProtection?
        /// The LocalAuthentication context a read uses (`kSecUseAuthenticationContext`): one
        /// already confirmed by the gate reads without a second prompt.
        var authenticationContext: (@Sendable () -> AnyObject)?
        /// A context that never prompts, for ``exists()`` on an item behind biometrics.
        var nonInteractiveContext: (@Sendable () -> AnyObject)?

        private var query: [String: Any] {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        func read() throws -> Data? {
            var query = self.query
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            if let authenticationContext { query[kSecUseAuthenticationContext as String] = authenticationContext() }
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return nil }
            try Self.check(status)
            return result as? Data
        }

        /// Whether the item exists, asking nobody: only its attributes are read.
        func exists() throws -> Bool {
            var query = self.query
            query[kSecReturnAttributes as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            if let nonInteractiveContext { query[kSecUseAuthenticationContext as String] = nonInteractiveContext() }
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            if status == errSecItemNotFound { return false }
            // An item whose attributes need a prompt exists all the same.
            if status == errSecInteractionNotAllowed { return true }
            try Self.check(status)
            return true
        }

        func write(_ data: Data) throws {
            try delete()
            var item = query
            item[kSecValueData as String] = data
            if let protection {
                item[kSecAttrAccessControl as String] = try Self.accessControl(accessibility, protection)
            } else {
                item[kSecAttrAccessible as String] = Self.constant(accessibility)
            }
            try Self.check(SecItemAdd(item as CFDictionary, nil))
        }

        func delete() throws {
            let status = SecItemDelete(query as CFDictionary)
            if status != errSecItemNotFound { try Self.check(status) }
        }

        /// A biometric refusal as ``SesameClientError/biometricFailure``, any other failure
        /// as the Keychain's status.
        private static func check(_ status: OSStatus) throws {
            if status == errSecSuccess { return }
            if let failure = BiometricFailure(keychainStatus: Int(status)) { throw SesameClientError.biometric(failure) }
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(status))
        }

        private static func accessControl(_ accessibility: KeychainAccessibility, _ protection: KeychainProtection) throws
            -> SecAccessControl
        {
            var flags: SecAccessControlCreateFlags = protection.biometryCurrentSet ? [.biometryCurrentSet] : []
            if protection.orDevicePasscode { flags.formUnion([.or, .devicePasscode]) }
            var error: Unmanaged<CFError>?
            guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, constant(accessibility), flags, &error)
            else { throw error.map { $0.takeRetainedValue() as Error } ?? NSError(domain: NSOSStatusErrorDomain, code: -50) }
            return access
        }

        private static func constant(_ accessibility: KeychainAccessibility) -> CFString {
            switch accessibility {
            case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            case .whenPasscodeSetThisDeviceOnly: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
            }
        }
    }

    /// The session in the Keychain, on this device only: readable from the first unlock after
    /// a restart by default (a background refresh renews while the screen is locked), shared
    /// with the app's extensions through an access group, and optionally behind biometrics.
    public struct KeychainCredentialsStore: CredentialsStore {
        let item: KeychainItem

        /// A store under `service` (your app's bundle id, say).
        public init(service: String) {
            self.init(service: service, accessGroup: nil)
        }

        /// A store under `service`, shared through the Keychain `accessGroup` (the
        /// `keychain-access-groups` entitlement's value, team id first, for app extensions).
        public init(
            service: String, accessGroup: String?, accessibility: KeychainAccessibility = .afterFirstUnlockThisDeviceOnly
        ) {
            item = KeychainItem(
                service: service, account: "sesame.session", accessGroup: accessGroup, accessibility: accessibility)
        }

        #if os(iOS) || os(macOS) || os(visionOS)
            /// A store whose item opens only for the current biometry set (or the passcode, as
            /// `policy` allows); reads use `biometrics`' confirmed context, so the gate's prompt
            /// is the only one. Pair it with ``CredentialsManager/enableBiometrics(_:)`` given a
            /// ``BiometricGate`` over the same `biometrics` and `policy`.
            public init(
                service: String, accessGroup: String? = nil,
                accessibility: KeychainAccessibility = .afterFirstUnlockThisDeviceOnly,
                biometrics: LocalAuthenticationBiometrics, policy: BiometricPolicy
            ) {
                item = KeychainItem(
                    service: service, account: "sesame.session", accessGroup: accessGroup, accessibility: accessibility,
                    protection: policy.keychainProtection, authenticationContext: { biometrics.authenticationContext },
                    nonInteractiveContext: { biometrics.nonInteractiveContext })
            }
        #endif

        public func load() throws -> StoredSession? {
            try item.read().map { try JSONDecoder().decode(StoredSession.self, from: $0) }
        }

        public func containsSession() throws -> Bool { try item.exists() }

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
