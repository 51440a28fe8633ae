import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address, parsed by the C library's `inet_pton` (no zone ids, no leading
/// zeros guessed at): a forwarding header that does not hold exactly an address is ignored.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4 (IPv4-mapped IPv6 addresses included), 16 for IPv6.
    public let bytes: [UInt8]

    /// Parses `text`; nil when it is not an IPv4 or IPv6 address.
    public init?(_ text: some StringProtocol) {
        let text = String(text)
        if let v4 = Self.parse(text, family: AF_INET, length: 4) {
            bytes = v4
        } else if let v6 = Self.parse(text, family: AF_INET6, length: 16) {
            // ::ffff:a.b.c.d is the IPv4 client a dual-stack socket reports: one client, one key.
            bytes = v6.starts(with: Self.mappedPrefix) ? Array(v6[12...]) : v6
        } else {
            return nil
        }
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]

    private static func parse(_ text: String, family: Int32, length: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: length)
        let parsed = buffer.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
        return parsed == 1 ? buffer : nil
    }

    /// Whether this is an IPv4 address.
    public var isIPv4: Bool { bytes.count == 4 }

    /// The key under which rate limits count this client: an IPv4 address as itself, an IPv6
    /// address by its /64, because one subscriber is usually given a whole /64 and could
    /// otherwise take a fresh address for every request.
    public var clientKey: String {
        isIPv4 ? description : IPAddress(bytes: Array(bytes.prefix(8)) + Array(repeating: 0, count: 8)).description + "/64"
    }

    /// The canonical text (`inet_ntop`): one client always has one spelling.
    public var description: String {
        let family = isIPv4 ? AF_INET : AF_INET6
        var text = [CChar](repeating: 0, count: 64)
        let written = bytes.withUnsafeBytes { source in
            text.withUnsafeMutableBufferPointer { inet_ntop(family, source.baseAddress, $0.baseAddress, 64) }
        }
        guard written != nil else { return "" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A CIDR range (`10.0.0.0/8`, `2001:db8::/32`) or a single address, for trusted proxies.
public struct IPRange: Sendable, Hashable, CustomStringConvertible {
    let network: IPAddress
    let prefixLength: Int

    /// Parses `address` or `address/prefix`; nil when malformed or the prefix is too long.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let network = IPAddress(parts[0].trimmingCharacters(in: .whitespaces)) else { return nil }
        let bits = network.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1].trimmingCharacters(in: .whitespaces)), (0...bits).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        self.network = network
    }

    /// Whether `address` lies in the range.
    public func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (ours, theirs) in zip(network.bytes, address.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            guard ours & mask == theirs & mask else { return false }
            remaining -= 8
        }
        return true
    }

    /// `network/prefix`.
    public var description: String { "\(network)/\(prefixLength)" }

    /// Loopback and private networks (RFC 1918, RFC 4193, link-local): where a reverse proxy
    /// in front of Sesame usually sits.
    public static let localNetworks: [IPRange] = [
        "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "::1/128", "fc00::/7",
        "fe80::/10",
    ].compactMap { IPRange($0) }
}
