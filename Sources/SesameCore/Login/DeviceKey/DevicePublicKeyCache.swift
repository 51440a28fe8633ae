import Synchronization

/// Registered device keys, parsed once.
///
/// Every device-key login verifies against the stored key's DER; parsing it again for each
/// login (ASN.1, then the key's point checks) cost about as much as the ECDSA verification
/// itself (docs/performance.md). Keys are immutable, so the parsed form of the same bytes is
/// the same key. The cache is bounded: past `capacity` keys it starts over.
final class DevicePublicKeyCache: Sendable {
    private let keys = Mutex<[[UInt8]: DevicePublicKey]>([:])
    private let capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The key `der` holds, checked against `policy` on every use: a size the policy no longer
    /// admits is refused even when the key was parsed while it did.
    func key(der: [UInt8], policy: DeviceKeyPolicy) throws -> DevicePublicKey {
        if let key = keys.withLock({ $0[der] }), key.isAdmitted(by: policy) {
            return key
        }
        let key = try DevicePublicKey(der: der, policy: policy)
        keys.withLock { keys in
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys[der] = key
        }
        return key
    }
}
