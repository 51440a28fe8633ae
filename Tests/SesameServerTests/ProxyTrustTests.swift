import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameCore
import SesameServer
import Testing

/// Attacks on the client address Sesame rate-limits by: choosing it through forwarding
/// headers, or rotating through an IPv6 subscriber's /64.
@Suite("Attacks: forged forwarding headers, IPv6 address rotation")
struct ProxyTrustTests {
    static let proxies = ProxyPolicy(trusted: ["10.0.0.0/8", "127.0.0.1"].compactMap { IPRange($0) })

    /// Attack: nginx appends the address it saw to the client's own `X-Forwarded-For`, so a
    /// client sending `X-Forwarded-For: <random>` chose its rate-limit key when the leftmost
    /// entry was believed, and got a fresh `/passwordless/start` (and SMS) budget per request.
    @Test("proxy spoofing: a client-sent X-Forwarded-For entry does not choose the rate-limit key")
    func spoofedForwardedFor() async throws {
        try await Harness.run(configure: { $0.startLimitPerIP = RateLimitRule(limit: 2, windowSeconds: 3600) }) { h in
            var statuses: [HTTPResponse.Status] = []
            for index in 1...3 {
                let response = try await h.start(email: "user\(index)@example.com", from: "203.0.113.\(index), 198.51.100.7")
                statuses.append(response.status)
            }
            #expect(statuses == [.ok, .ok, .tooManyRequests], "one real client, one budget, whatever it claims")
        }
    }

    /// Attack: nginx appends to `X-Forwarded-For` but passes `Forwarded` through untouched, so
    /// a client sending its own `Forwarded: for=<random>` chose its rate-limit key (and the
    /// address in the audit log) while Sesame preferred `Forwarded` whenever it was present.
    @Test("forged Forwarded: a client's own Forwarded header does not choose the rate-limit key")
    func forgedForwardedHeader() async throws {
        try await Harness.run(configure: { $0.startLimitPerIP = RateLimitRule(limit: 3, windowSeconds: 3600) }) { h in
            var statuses: [HTTPResponse.Status] = []
            for index in 1...8 {
                let response = try await h.post(
                    "/passwordless/start",
                    ["client_id": h.clientID, "connection": "email", "email": "user\(index)@example.com", "send": "code"],
                    headers: [
                        HTTPField.Name("Forwarded")!: "for=203.0.113.\(index)",
                        HTTPField.Name("X-Forwarded-For")!: "198.51.100.7",
                    ])
                statuses.append(response.status)
            }
            #expect(statuses == [.ok, .ok, .ok] + Array(repeating: .tooManyRequests, count: 5), "one client, one budget")
            let addresses = Set(try await h.sesame.storage.recentAuditEvents(limit: 100).compactMap(\.ip))
            #expect(!addresses.contains { $0.hasPrefix("203.0.113.") }, "the audit log names the real client: \(addresses)")
        }
    }

    @Test("proxy_header chooses the one header believed; anything else stops the start")
    func proxyHeaderSetting() async throws {
        let noFile = ["data_dir": FileManager.default.temporaryDirectory.appendingPathComponent("sesame-none-\(UUID())").path]
        let defaults = try await ServerConfiguration.load(flags: noFile, environment: ["SESAME_TRUST_PROXY": "true"])
        #expect(defaults.proxyPolicy.header == .xForwardedFor)
        let forwarded = try await ServerConfiguration.load(
            flags: noFile, environment: ["SESAME_TRUSTED_PROXIES": "10.0.0.1", "SESAME_PROXY_HEADER": "forwarded"])
        #expect(forwarded.proxyPolicy == ProxyPolicy(trusted: [IPRange("10.0.0.1")!], header: .forwarded))
        let peer = IPAddress("10.0.0.1")
        #expect(
            forwarded.proxyPolicy.clientAddress(peer: peer, forwarded: ["for=198.51.100.7"], forwardedFor: ["6.6.6.6"])
                == "198.51.100.7", "X-Forwarded-For is the client's own words here")
        do {
            _ = try await ServerConfiguration.load(flags: noFile, environment: ["SESAME_PROXY_HEADER": "x-real-ip"])
            Issue.record("an unknown proxy_header was accepted")
        } catch let error as ConfigurationError {
            #expect(
                error.description.contains("proxy_header (SESAME_PROXY_HEADER): 'x-real-ip' must be x-forwarded-for or forwarded")
            )
        }
    }

    /// Attack: an IPv6 subscriber holds a whole /64 and takes a new address per request.
    @Test("IPv6 rotation: addresses in one /64 share a rate limit")
    func ipv6Rotation() async throws {
        try await Harness.run(configure: { $0.startLimitPerIP = RateLimitRule(limit: 2, windowSeconds: 3600) }) { h in
            var statuses: [HTTPResponse.Status] = []
            for index in 1...3 {
                statuses.append(try await h.start(email: "user\(index)@example.com", from: "2001:db8:1:2::\(index)").status)
            }
            #expect(statuses == [.ok, .ok, .tooManyRequests])
            #expect(try await h.start(email: "other@example.com", from: "2001:db8:1:3::1").status == .ok, "another /64")
        }
    }

    @Test("the client is the rightmost forwarded address that is not a trusted proxy")
    func rightmostUntrusted() {
        let peer = IPAddress("10.0.0.5")
        #expect(Self.proxies.clientAddress(peer: peer, forwarded: [], forwardedFor: ["6.6.6.6, 198.51.100.7"]) == "198.51.100.7")
        #expect(
            Self.proxies.clientAddress(peer: peer, forwarded: [], forwardedFor: ["6.6.6.6, 198.51.100.7, 10.1.2.3"])
                == "198.51.100.7", "inner proxies are skipped")
        #expect(
            Self.proxies.clientAddress(peer: peer, forwarded: [], forwardedFor: ["6.6.6.6", "198.51.100.7"]) == "198.51.100.7",
            "several header lines form one list")
        #expect(Self.proxies.clientAddress(peer: peer, forwarded: [], forwardedFor: []) == "10.0.0.5")
        #expect(
            Self.proxies.clientAddress(peer: peer, forwarded: [], forwardedFor: ["10.9.9.9, 127.0.0.1"]) == "10.9.9.9",
            "all trusted: the farthest hop")
    }

    /// Attack: a client that reaches Sesame directly sends the header itself.
    @Test("a forwarding header from a peer that is not a trusted proxy is ignored")
    func untrustedPeer() {
        let direct = IPAddress("198.51.100.9")
        #expect(Self.proxies.clientAddress(peer: direct, forwarded: [], forwardedFor: ["1.2.3.4"]) == "198.51.100.9")
        #expect(
            ProxyPolicy.none.clientAddress(peer: IPAddress("10.0.0.5"), forwarded: [], forwardedFor: ["1.2.3.4"]) == "10.0.0.5")
    }

    @Test("RFC 7239 Forwarded: quoted IPv6 with port, several elements; unknown and garbage stop the walk")
    func forwardedHeader() {
        let peer = IPAddress("127.0.0.1")
        let proxies = Self.proxies.reading(.forwarded)
        #expect(
            proxies.clientAddress(
                peer: peer, forwarded: [#"for=6.6.6.6, for="[2001:db8::1]:4711";proto=https"#], forwardedFor: ["9.9.9.9"])
                == "2001:db8::1", "with proxy_header=forwarded, X-Forwarded-For is ignored")
        #expect(
            Self.proxies.clientAddress(peer: peer, forwarded: ["for=2001:db8::1"], forwardedFor: ["9.9.9.9"]) == "9.9.9.9",
            "by default Forwarded is ignored")
        #expect(
            proxies.clientAddress(peer: peer, forwarded: ["for=198.51.100.7:8080;by=10.0.0.1"], forwardedFor: [])
                == "198.51.100.7")
        #expect(
            proxies.clientAddress(peer: peer, forwarded: ["for=6.6.6.6, for=unknown"], forwardedFor: []) == "127.0.0.1",
            "an unknown hop: the proxy that reported it")
        #expect(Self.proxies.clientAddress(peer: peer, forwarded: [], forwardedFor: ["6.6.6.6, not-an-ip"]) == "127.0.0.1")
    }

    @Test("addresses parse strictly, IPv4-mapped IPv6 is IPv4, IPv6 is counted per /64")
    func addresses() {
        #expect(IPAddress("198.51.100.7")?.clientKey == "198.51.100.7")
        #expect(IPAddress("::ffff:198.51.100.7")?.description == "198.51.100.7")
        #expect(IPAddress("2001:DB8:1:2:aaaa:bbbb:cccc:dddd")?.clientKey == "2001:db8:1:2::/64")
        #expect(IPAddress("1.2.3") == nil && IPAddress("01.2.3.4") == nil && IPAddress("::1%eth0") == nil)
        #expect(IPAddress("1.2.3.4 ") == nil && IPAddress("") == nil)
        #expect(IPRange("10.0.0.0/8")?.contains(IPAddress("10.255.0.1")!) == true)
        #expect(IPRange("10.0.0.0/8")?.contains(IPAddress("11.0.0.1")!) == false)
        #expect(IPRange("172.16.0.0/12")?.contains(IPAddress("172.31.255.255")!) == true)
        #expect(IPRange("172.16.0.0/12")?.contains(IPAddress("172.32.0.0")!) == false)
        #expect(IPRange("2001:db8::/32")?.contains(IPAddress("2001:db8:ffff::1")!) == true)
        #expect(IPRange("10.0.0.0/8")?.contains(IPAddress("::ffff:10.1.1.1")!) == true)
        #expect(IPRange("10.0.0.0/33") == nil && IPRange("nonsense/8") == nil && IPRange("10.0.0.0/") == nil)
    }
}
