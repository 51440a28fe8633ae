import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
public import SesameCore

/// The one forwarding header a deployment's proxy sets (`proxy_header`).
public enum ProxyHeader: String, Sendable, Equatable, CaseIterable {
    /// `X-Forwarded-For`, which nginx's `$proxy_add_x_forwarded_for` appends to.
    case xForwardedFor = "x-forwarded-for"
    /// RFC 7239 `Forwarded`.
    case forwarded
}

/// Which peers may tell Sesame the client's address, in which one header (`X-Forwarded-For`
/// or RFC 7239 `Forwarded`), and how the client is found in it.
///
/// A proxy appends the address it saw to what the client sent (nginx's
/// `$proxy_add_x_forwarded_for`), so only the right end of the list is trustworthy: the
/// client is the rightmost address that is not one of our proxies. Taking the leftmost would
/// let any client choose its address, and so its rate-limit key.
///
/// Only the header the operator names is read: a proxy that appends to one header passes the
/// other through as the client wrote it, so believing both would let the client pick again.
public struct ProxyPolicy: Sendable, Equatable {
    /// The proxies whose forwarding headers are believed; empty believes none.
    public var trusted: [IPRange]
    /// The header those proxies set; the other is ignored.
    public var header: ProxyHeader

    /// Believes no forwarding header: the socket's peer is the client.
    public static let none = ProxyPolicy(trusted: [])

    /// Believes `header` from the proxies in `trusted`.
    public init(trusted: [IPRange], header: ProxyHeader = .xForwardedFor) {
        self.trusted = trusted
        self.header = header
    }

    /// `trust_proxy` with no `trusted_proxies`: proxies on loopback and private networks.
    public static let localNetworks = ProxyPolicy(trusted: IPRange.localNetworks)

    /// This policy reading `header` instead.
    public func reading(_ header: ProxyHeader) -> ProxyPolicy {
        ProxyPolicy(trusted: trusted, header: header)
    }

    /// Whether `peer` is one of the trusted proxies (a peer without an IP address, a Unix
    /// socket or an in-process test, counts as local and so trusted when any proxy is).
    public func isTrustedPeer(_ peer: IPAddress?) -> Bool {
        !trusted.isEmpty && (peer.map(isTrusted) ?? true)
    }

    /// The client's address for a request from `peer` carrying these header values.
    /// - Parameter peer: the socket's peer; nil for a peer without an IP address (a Unix
    ///   socket, or an in-process test), which only a local process can be.
    public func clientAddress(peer: IPAddress?, forwarded: [String], forwardedFor: [String]) -> String? {
        guard isTrustedPeer(peer) else { return peer?.description }
        let chain =
            switch header {
            case .xForwardedFor: Self.forwardedForChain(forwardedFor)
            case .forwarded: Self.forwardedChain(forwarded)
            }
        var client = peer
        for hop in chain.reversed() {
            // An entry that is not an address (`unknown`, an obfuscated `_name`, garbage) ends
            // the walk: nothing left of it was vouched for by a proxy we trust.
            guard let address = hop else { break }
            client = address
            if !isTrusted(address) { break }
        }
        return client?.description
    }

    private func isTrusted(_ address: IPAddress) -> Bool {
        trusted.contains { $0.contains(address) }
    }

    /// `X-Forwarded-For: a, b, c` (possibly over several header lines).
    static func forwardedForChain(_ values: [String]) -> [IPAddress?] {
        values.flatMap { $0.split(separator: ",") }.map { IPAddress(strippingPort($0.trimmingCharacters(in: .whitespaces))) }
    }

    /// The `for=` of each element of `Forwarded: for=a;proto=https, for="[2001:db8::1]:443"`.
    static func forwardedChain(_ values: [String]) -> [IPAddress?] {
        values.flatMap { $0.split(separator: ",") }.map { element in
            let pairs = element.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let node = pairs.first(where: { $0.lowercased().hasPrefix("for=") }) else { return nil }
            let value = node.dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return IPAddress(strippingPort(value))
        }
    }

    /// `[v6]:port`, `[v6]`, `v4:port` → the address alone.
    private static func strippingPort(_ node: String) -> String {
        if node.hasPrefix("["), let close = node.firstIndex(of: "]") {
            return String(node[node.index(after: node.startIndex)..<close])
        }
        if node.filter({ $0 == ":" }).count == 1, let colon = node.firstIndex(of: ":") {
            return String(node[..<colon])
        }
        return node
    }
}

extension SesameRequestContext {
    /// The client's IP for rate limiting and audit, per the operator's ``ProxyPolicy``.
    func clientIP(_ request: Request, proxies: ProxyPolicy) -> String {
        let peer = remoteAddress?.ipAddress.flatMap { IPAddress($0) }
        let address = proxies.clientAddress(
            peer: peer, forwarded: request.headers[values: .forwarded],
            forwardedFor: request.headers[values: .xForwardedFor])
        return address ?? remoteAddress?.ipAddress ?? "unknown"
    }
}

extension HTTPField.Name {
    static let forwarded = HTTPField.Name("Forwarded")!
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
