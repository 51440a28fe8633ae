// Apple platforms only: not compiled on Linux, where FileDeviceKeyStore takes its place
// (docs/sdk.md says so).
#if canImport(CryptoKit) && canImport(Security)
    import CryptoKit
    public import Foundation
    public import Security

    /// A P-256 device key made inside the Secure Enclave: the private key never leaves the
    /// hardware, and each signature needs the person's biometry (or the device passcode), so
    /// a copied Keychain or backup cannot sign in. The Keychain keeps only the enclave's
    /// opaque handle and the credential id.
    public struct SecureEnclaveDeviceKeyStore: DeviceKeyStore {
        /// Where the handle and credential id are kept.
        let handles: KeychainDeviceKeyStore
        /// Who may use the key: the current biometry set by default, so enrolling a new
        /// finger or face makes the key unusable (TouchIDAuth's behaviour).
        let accessControlFlags: SecAccessControlCreateFlags

        /// A store under `service`.
        public init(service: String, accessControlFlags: SecAccessControlCreateFlags = [.privateKeyUsage, .biometryCurrentSet]) {
            handles = KeychainDeviceKeyStore(item: KeychainItem(service: service, account: "sesame.device-key.secure-enclave"))
            self.accessControlFlags = accessControlFlags
        }

        /// False on devices without a Secure Enclave (the simulator, older Macs): use
        /// `KeychainDeviceKeyStore` there.
        public static var isAvailable: Bool { SecureEnclave.isAvailable }

        public func load() throws -> DeviceKey? { try handles.load() }

        public func save(_ key: DeviceKey) throws { try handles.save(key) }

        /// Forgets the handle; the enclave key is unreachable without it.
        public func delete() throws { try handles.delete() }

        /// A new enclave key; only ES256 exists in the Secure Enclave.
        public func makeKey(_ algorithm: DeviceKey.Algorithm) throws -> DeviceKey {
            guard algorithm == .es256 else { throw CryptoKitError.incorrectParameterSize }
            var error: Unmanaged<CFError>?
            guard
                let access = SecAccessControlCreateWithFlags(
                    kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, accessControlFlags, &error)
            else { throw error!.takeRetainedValue() as Error }
            let key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
            return DeviceKey(
                algorithm: .es256, privateKeyPEM: "", hardwareKey: key.dataRepresentation, deviceID: DeviceKey.newDeviceID())
        }

        public func publicKeyPEM(of key: DeviceKey) throws -> String {
            try enclaveKey(key).publicKey.pemRepresentation
        }

        /// Signs in the enclave; the system shows the biometric prompt here.
        public func signature(of key: DeviceKey, over input: [UInt8]) throws -> Data {
            try enclaveKey(key).signature(for: input).rawRepresentation
        }

        private func enclaveKey(_ key: DeviceKey) throws -> SecureEnclave.P256.Signing.PrivateKey {
            guard let handle = key.hardwareKey else { throw CryptoKitError.invalidParameter }
            return try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: handle)
        }
    }
#endif
