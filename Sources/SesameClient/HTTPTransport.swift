import Foundation
import SesameAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// JSON over URLSession: one place where requests are built, sent and their errors read.
struct HTTPTransport: Sendable {
    let base: URL
    let session: URLSession

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
        var request = URLRequest(url: url(path))
        request.httpMethod = method
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        }
        return try await send(request, bearer: bearer)
    }

    /// GETs `path`.
    func get(_ path: String, bearer: String? = nil) async throws -> Answer {
        try await send(URLRequest(url: url(path)), bearer: bearer)
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

    private func send(_ request: URLRequest, bearer: String?) async throws -> Answer {
        var request = request
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw SesameClientError.network(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw SesameClientError.invalidResponse("not HTTP") }
        var headers: [String: String] = [:]
        for case (let name as String, let value as String) in http.allHeaderFields { headers[name.lowercased()] = value }
        guard (200..<300).contains(http.statusCode) else { throw Self.refusal(http.statusCode, data, headers) }
        return Answer(body: data, headers: headers)
    }

    /// Auth0's error shape, or the status alone when the body is something else.
    private static func refusal(_ status: Int, _ data: Data, _ headers: [String: String]) -> SesameClientError {
        let body = try? JSONDecoder().decode(ErrorBody.self, from: data)
        let reset = headers["x-ratelimit-reset"].flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:))
        return .server(
            status: status, code: body?.error ?? "http_\(status)",
            message: body?.errorDescription ?? HTTPURLResponse.localizedString(forStatusCode: status),
            errorReason: body?.errorReason, rateLimitReset: reset)
    }
}
