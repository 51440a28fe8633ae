import Foundation
import SesameAPI

/// JSON over HTTP: one place where requests are built, sent and their errors read.
struct HTTPTransport: Sendable {
    let base: URL
    let exchange: HTTPExchange.Send
    /// The key that proves possession of the tokens, when the client uses DPoP.
    var dpop: DPoP?

    /// A JSON body's answer: the bytes and the headers a caller may need (rate limits).
    struct Answer {
        let body: Data
        let headers: [String: String]
    }

    /// POSTs `body` as JSON to `path`; nil members are left out.
    func post(_ path: String, _ body: [String: String?], bearer: String? = nil) async throws -> Answer {
        try await send(method: "POST", path, body.compactMapValues { $0 }, bearer: bearer)
    }

    /// POSTs a JSON object that nests objects (a passkey answer) to `path`.
    func postJSON(_ path: String, _ body: [String: Any]) async throws -> Answer {
        try await send(method: "POST", path, body)
    }

    /// Sends `body`, when there is one, as JSON to `path` with `method`.
    func send(method: String, _ path: String, _ body: [String: Any]?, bearer: String? = nil) async throws -> Answer {
        var request = HTTPExchange.Request(method: method, url: url(path))
        if let body {
            request.headers.append(("Content-Type", "application/json"))
            request.body = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        }
        return try await send(request, bearer: bearer)
    }

    /// GETs `path`.
    func get(_ path: String, bearer: String? = nil) async throws -> Answer {
        try await send(HTTPExchange.Request(method: "GET", url: url(path)), bearer: bearer)
    }

    /// Decodes an answer as `T`.
    func decode<T: Decodable>(_ type: T.Type, _ answer: Answer) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: answer.body)
        } catch {
            throw SesameClientError.invalidResponse("\(T.self): \(error)")
        }
    }

    private func url(_ path: String) -> URL {
        base.appendingPathComponent(String(path.drop { $0 == "/" }))
    }

    private func send(_ request: HTTPExchange.Request, bearer: String?) async throws -> Answer {
        // A proof goes to the token endpoint and with every access token (RFC 9449 §5, §7).
        guard let dpop, bearer != nil || request.url.path.hasSuffix("/oauth/token") else {
            return try await sendOnce(request, bearer: bearer, dpop: nil)
        }
        do {
            return try await sendOnce(request, bearer: bearer, dpop: dpop)
        } catch let error as SesameClientError where error.code == "use_dpop_nonce" {
            // The server asked for its nonce, which the refusal carried: once more with it (§8).
            return try await sendOnce(request, bearer: bearer, dpop: dpop)
        }
    }

    private func sendOnce(_ request: HTTPExchange.Request, bearer: String?, dpop: DPoP?) async throws -> Answer {
        var request = request
        request.headers.append(("Accept", "application/json"))
        if let bearer { request.headers.append(("Authorization", "\(dpop == nil ? "Bearer" : "DPoP") \(bearer)")) }
        if let dpop {
            let proof = try dpop.proof(
                method: request.method, url: request.url, nonce: dpop.nonces.current, accessToken: bearer)
            request.headers.append(("DPoP", proof))
        }
        let response: HTTPExchange.Response
        do {
            response = try await exchange(request)
        } catch {
            throw SesameClientError.network(error.localizedDescription)
        }
        dpop?.nonces.keep(response.headers["dpop-nonce"])
        guard (200..<300).contains(response.status) else { throw Self.refusal(response) }
        return Answer(body: response.body, headers: response.headers)
    }

    /// Auth0's error shape, or the status alone when the body is something else. Under
    /// `/api/v2/` the code is the Management API body's `errorCode` (its `error` is the HTTP
    /// reason phrase).
    private static func refusal(_ response: HTTPExchange.Response) -> SesameClientError {
        let body = try? JSONDecoder().decode(ErrorBody.self, from: response.body)
        let managementCode = (try? JSONDecoder().decode(ManagementErrorBody.self, from: response.body))?.errorCode
        let reset = response.headers["x-ratelimit-reset"].flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:))
        return .server(
            status: response.status, code: managementCode ?? body?.error ?? "http_\(response.status)",
            message: body?.errorDescription ?? response.reason,
            errorReason: body?.errorReason, rateLimitReset: reset)
    }
}
