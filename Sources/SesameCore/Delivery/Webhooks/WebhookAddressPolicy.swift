import Foundation

/// Where webhook calls may go. Anyone who can register an endpoint (an operator's script, a
/// stolen management token) could otherwise aim the server's own calls at its private
/// network: a cloud metadata service (169.254.169.254), a database's admin port on loopback,
/// an internal dashboard. So addresses that are not public (``IPRange/nonPublic``) are refused
/// unless the operator lists them in `webhook_allowed_hosts`: host names (matched exactly,
/// ignoring case) and addresses or CIDR ranges.
///
/// The check applies to every address a host name resolves to, when each call is sent, so a
/// name that resolved to a public address at registration and to a private one later (DNS
/// rebinding) is refused too.
public struct WebhookAddressPolicy: Sendable, Equatable {
    /// Host names allowed whatever they resolve to, lowercased.
    public var allowedHosts: Set<String>
    /// Addresses and ranges allowed even though they are not public.
    public var allowedRanges: [IPRange]

    /// A policy that allows `hosts` and `ranges` beyond the public internet.
    public init(allowedHosts: Set<String> = [], allowedRanges: [IPRange] = []) {
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.allowedRanges = allowedRanges
    }

    /// Reads `webhook_allowed_hosts` entries: each an address, a CIDR range or a host name.
    /// - Returns: the policy, and the entries that are none of these.
    public static func parse(_ entries: [String]) -> (policy: WebhookAddressPolicy, invalid: [String]) {
        var policy = WebhookAddressPolicy()
        var invalid: [String] = []
        for entry in entries.map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            if let range = IPRange(Self.unbracketed(entry)) {
                policy.allowedRanges.append(range)
            } else if Self.isHostName(entry) {
                policy.allowedHosts.insert(entry.lowercased())
            } else {
                invalid.append(entry)
            }
        }
        return (policy, invalid)
    }

    /// Whether a URL with this literal `host` may be registered. A literal address (or
    /// `localhost`) must be public or allowed; another name is checked when calls are sent,
    /// since what it resolves to may change.
    public func permitsRegistration(host: String) -> Bool {
        let name = Self.unbracketed(host).lowercased()
        if allowedHosts.contains(name) { return true }
        if let address = IPAddress(name) { return permits(host: name, address: address) }
        if Self.isLocalhostName(name), let loopback = IPAddress("127.0.0.1") { return permits(host: name, address: loopback) }
        return true
    }

    /// Whether a call to `host` may go to `address`, one of the addresses it resolved to.
    public func permits(host: String, address: IPAddress) -> Bool {
        if allowedHosts.contains(Self.unbracketed(host).lowercased()) { return true }
        return !IPRange.isNonPublic(address) || allowedRanges.contains { $0.contains(address) }
    }

    /// Whether `host` is allowed by name, so that what it resolves to is not checked.
    public func allowsByName(_ host: String) -> Bool {
        allowedHosts.contains(Self.unbracketed(host).lowercased())
    }

    /// `localhost` and its subdomains, which resolvers answer with loopback (RFC 6761).
    static func isLocalhostName(_ name: String) -> Bool {
        let name = name.hasSuffix(".") ? String(name.dropLast()) : name
        return name == "localhost" || name.hasSuffix(".localhost")
    }

    /// `[::1]` as URLs write it, `::1` as resolvers do.
    static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Letters, digits, hyphens and dots, as DNS names are written.
    static func isHostName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 253
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-.".unicodeScalars.contains($0))
            }
    }
}
