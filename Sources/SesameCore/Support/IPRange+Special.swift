extension IPRange {
    /// Loopback: 127.0.0.0/8 and ::1.
    public static let loopback: [IPRange] = ["127.0.0.0/8", "::1/128"].compactMap { IPRange($0) }

    /// Addresses that are not the public internet: "this network" (0.0.0.0/8), loopback, RFC 1918,
    /// carrier-grade NAT (100.64.0.0/10), link-local (169.254.0.0/16, where cloud metadata
    /// services answer, and fe80::/10), unique-local (fc00::/7), the unspecified address and
    /// multicast. A call made by the server to one of them reaches the server's own network,
    /// which whoever chose the URL cannot reach themselves.
    public static let nonPublic: [IPRange] = [
        "0.0.0.0/8", "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
        "169.254.0.0/16", "192.0.0.0/24", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4", "::/128", "::1/128",
        "fc00::/7", "fe80::/10", "ff00::/8",
    ].compactMap { IPRange($0) }

    /// Whether `address` is in ``nonPublic``.
    public static func isNonPublic(_ address: IPAddress) -> Bool {
        nonPublic.contains { $0.contains(address) }
    }
}
