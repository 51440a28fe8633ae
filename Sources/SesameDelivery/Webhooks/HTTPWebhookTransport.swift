import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
public import SesameCore

/// Posts webhook calls over HTTP with AsyncHTTPClient.
///
/// Any 2xx answer is success. `410 Gone` says the receiver will never take the call, so it
/// is permanent; every other answer and every connection problem is transient, as Standard
/// Webhooks receivers expect to be retried (a deploy, a crash, a full queue).
///
/// Redirects are not followed: a 3xx is a failed attempt. A receiver that answered
/// `302 Location: http://127.0.0.1:5432/` would otherwise point the server's call at its own
/// network. For the same reason each call resolves the host itself, refuses it when any
/// address is not public and not allowed by ``policy`` (``WebhookAddressPolicy``), and then
/// connects to exactly the address it checked, so a name that changes its answer between the
/// check and the connection (DNS rebinding) gains nothing. TLS still verifies the host name.
public struct HTTPWebhookTransport: WebhookTransport {
    /// Which private addresses calls may reach.
    public var policy: WebhookAddressPolicy
    /// How long one call may take, connecting included.
    public var timeout: Duration
    private let resolve: @Sendable (String) async throws -> [IPAddress]

    /// Creates a transport that allows the private addresses `policy` lists.
    public init(policy: WebhookAddressPolicy = WebhookAddressPolicy(), timeout: Duration = .seconds(15)) {
        self.init(policy: policy, timeout: timeout, resolve: HostResolver.addresses(of:))
    }

    /// Creates a transport with its own resolver (for tests: a name that resolves privately).
    init(
        policy: WebhookAddressPolicy, timeout: Duration, resolve: @escaping @Sendable (String) async throws -> [IPAddress]
    ) {
        self.policy = policy
        self.timeout = timeout
        self.resolve = resolve
    }

    public func post(url: String, headers: [(name: String, value: String)], body: Data) async throws {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else {
            throw DeliveryError(message: "webhook URL has no host", permanent: true)
        }
        let address = try await checkedAddress(host)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        // JSON unless the caller says otherwise (logout tokens are a form).
        if !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        request.headers.add(name: "User-Agent", value: "Sesame-Webhooks/1")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await withPinnedClient(host: host, address: address) { client in
            try await HTTPDelivery.execute(request, client: client, timeout: timeout, provider: "webhook endpoint")
        }
        guard (200..<300).contains(response.status) else {
            let redirect = (300..<400).contains(response.status) ? " (redirects are not followed)" : ""
            throw DeliveryError(
                message: "webhook endpoint answered HTTP \(response.status)\(redirect)", providerCode: "\(response.status)",
                permanent: response.status == 410)
        }
    }

    /// The address to connect to: the first `host` resolves to, once every one is allowed.
    func checkedAddress(_ host: String) async throws -> IPAddress {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses: [IPAddress]
        if let literal = IPAddress(bare) {
            addresses = [literal]
        } else {
            do {
                addresses = try await resolve(bare)
            } catch {
                throw DeliveryError(message: "webhook endpoint host \(bare) does not resolve")
            }
        }
        guard let first = addresses.first else {
            throw DeliveryError(message: "webhook endpoint host \(bare) does not resolve")
        }
        if let refused = addresses.first(where: { !policy.permits(host: bare, address: $0) }) {
            // Permanent: the endpoint stays refused until the operator allows it, and retrying
            // would only knock on the private address again.
            throw DeliveryError(
                message: "webhook endpoint \(bare) resolves to the private address \(refused), which "
                    + "webhook_allowed_hosts does not list", permanent: true)
        }
        return first
    }

    /// Runs `body` with a client that connects to `address` for `host` (TLS still checks
    /// `host`'s certificate) and follows no redirect, shut down afterwards.
    private func withPinnedClient<T: Sendable>(
        host: String, address: IPAddress, _ body: (HTTPClient) async throws -> T
    ) async throws -> T {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        configuration.dnsOverride = [bare: address.description]
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        do {
            let result = try await body(client)
            try? await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

/// Resolves host names with the system resolver (`getaddrinfo`) on NIO's blocking-I/O pool.
enum HostResolver {
    /// Every address `host` resolves to, IPv4 and IPv6.
    static func addresses(of host: String) async throws -> [IPAddress] {
        try await NIOThreadPool.singleton.runIfActive { try lookUp(host) }
    }

    private static func lookUp(_ host: String) throws -> [IPAddress] {
        var hints = addrinfo()
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else {
            throw DeliveryError(message: "\(host) does not resolve")
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        for entry in sequence(first: first, next: { $0.pointee.ai_next }) {
            guard let socketAddress = entry.pointee.ai_addr else { continue }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            guard
                getnameinfo(
                    socketAddress, entry.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0
            else { continue }
            let numeric = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // A scoped IPv6 address (fe80::1%eth0) is link-local: parse it without the zone.
            if let address = IPAddress(numeric.split(separator: "%").first ?? "") { addresses.append(address) }
        }
        return addresses
    }
}
