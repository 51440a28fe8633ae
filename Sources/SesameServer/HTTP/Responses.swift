import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat
import SesameAPI
import SesameCore

/// Builds the JSON, HTML and redirect responses every controller returns.
enum Responses {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// A JSON response. Token-bearing responses must not be cached (RFC 6749 §5.1).
    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, noStore: Bool = false) throws -> Response {
        json(body: ByteBuffer(data: try encoder.encode(value)), status: status, noStore: noStore)
    }

    /// A JSON response from a value that writes its own JSON, the bytes `encoder` would write
    /// (a token response on every login and refresh).
    static func json(_ value: some DirectJSONEncodable, status: HTTPResponse.Status = .ok, noStore: Bool = false) throws
        -> Response
    {
        let body = try value.directJSON().map { ByteBuffer(bytes: $0) } ?? ByteBuffer(data: encoder.encode(value))
        return json(body: body, status: status, noStore: noStore)
    }

    private static func json(body: ByteBuffer, status: HTTPResponse.Status, noStore: Bool) -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if noStore {
            headers[.cacheControl] = "no-store"
            headers[HTTPField.Name("Pragma")!] = "no-cache"
        }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// An HTML page that may not be framed, cached or leak its URL (it can hold a link token).
    /// - Parameter scripts: allow scripts from our own origin (and their calls back to it);
    ///   never inline ones.
    static func html(_ page: String, status: HTTPResponse.Status = .ok, scripts: Bool = false) -> Response {
        let policy =
            scripts
            ? "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'"
            : "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
        let headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
            HTTPField.Name("Referrer-Policy")!: "no-referrer", HTTPField.Name("X-Frame-Options")!: "DENY",
            .contentSecurityPolicy: policy,
        ]
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    /// A 303 to `location`, so the browser follows a POST with a GET.
    static func redirect(_ location: String) -> Response {
        Response(
            status: .seeOther,
            headers: [
                .location: location, .cacheControl: "no-store",
                HTTPField.Name("Referrer-Policy")!: "no-referrer",
            ])
    }
}

extension HTTPFields {
    /// Sets `X-RateLimit-Limit`, `-Remaining` and `-Reset` (epoch seconds), as Auth0 does.
    mutating func setRateLimit(_ status: RateLimitStatus) {
        self[HTTPField.Name("X-RateLimit-Limit")!] = String(status.limit)
        self[HTTPField.Name("X-RateLimit-Remaining")!] = String(status.remaining)
        self[HTTPField.Name("X-RateLimit-Reset")!] = String(status.resetEpochSeconds)
    }
}
