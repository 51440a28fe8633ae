import Crypto
public import Foundation
import SesameAPI

#if canImport(Glibc)
    import Glibc
#endif

/// Where secrets come from. Production uses the operating system's CSPRNG; tests may inject
/// a seeded source to make generated identifiers repeatable.
public protocol RandomSource: Sendable {
    /// `count` uniformly random bytes.
    func bytes(_ count: Int) -> [UInt8]
}

/// The operating system's cryptographically secure generator.
public struct SystemRandomSource: RandomSource {
    /// Creates the system source.
    public init() {}

    /// Random bytes from the kernel's CSPRNG. On Linux they come from `getentropy(3)`, up to
    /// 256 bytes per system call: swift-crypto's `SymmetricKey` (used before) draws them from
    /// `SystemRandomNumberGenerator` eight bytes, so one `getrandom(2)` call, at a time, which
    /// was about 1 % of a device-key login (docs/performance.md).
    public func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        #if canImport(Glibc)
            return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                var offset = 0
                while offset < count {
                    let chunk = min(256, count - offset)
                    // getentropy fails only for a length above 256 or a bad pointer; neither is possible here.
                    precondition(getentropy(buffer.baseAddress! + offset, chunk) == 0, "getentropy failed: \(errno)")
                    offset += chunk
                }
                initialized = count
            }
        #else
            return SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
        #endif
    }
}

extension RandomSource {
    /// A string of `length` decimal digits, each uniform: bytes ≥ 250 are rejected so that
    /// `byte % 10` has no modulo bias.
    public func digits(_ length: Int) -> String {
        var result = ""
        while result.count < length {
            for byte in bytes(length * 2) where byte < 250 && result.count < length {
                result.append(Character(String(byte % 10)))
            }
        }
        return result
    }

    /// `byteCount` random bytes as lowercase hex (Auth0-style user ids use 12 bytes).
    public func hex(_ byteCount: Int) -> String {
        Hex.encode(bytes(byteCount))
    }

    /// A 24-hex-digit identifier, the shape of `hex(12)`, that sorts by creation time: six
    /// bytes of milliseconds since 1970 at `date` (big-endian), then six random bytes.
    ///
    /// Rows keyed by a purely random identifier land on a random page of every index over it,
    /// so each login dirtied, logged and later checkpointed a page per such index; keys that
    /// grow with time share the newest pages. The random half keeps identifiers made in the
    /// same millisecond apart (2^48 values); none of these identifiers is a secret, and the
    /// time they reveal is recorded beside them anyway, as in Auth0's ObjectId-style ids.
    public func orderedHex(at date: Date) -> String {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        let time = (0..<6).map { UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - $0))) }
        return Hex.encode(time + bytes(6))
    }

    /// `byteCount` random bytes as unpadded base64url: 32 bytes give a 256-bit token.
    public func token(_ byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }

    /// A string of `length` characters from `[A-Za-z0-9]`, for client ids.
    public func alphanumeric(_ length: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var result = ""
        while result.count < length {
            // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
            for byte in bytes(length * 2) where byte < 248 && result.count < length {
                result.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return result
    }
}
