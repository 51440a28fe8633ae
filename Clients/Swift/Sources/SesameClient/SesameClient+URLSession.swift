public import Foundation
@_exported @_spi(Sesame) public import SesameClientCore

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

extension SesameClient {
    /// Creates a client of the server at `domain` for the application `clientID`.
    public init(domain: URL, clientID: String, session: URLSession = .shared) {
        self.init(domain: domain, clientID: clientID, exchange: URLSessionExchange(session: session).send)
    }
}

/// ``HTTPExchange`` over `URLSession`.
struct URLSessionExchange: Sendable {
    let session: URLSession

    @Sendable func send(_ request: HTTPExchange.Request) async throws -> HTTPExchange.Response {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        let headers = http.allHeaderFields.compactMap { name, value in
            (name as? String).flatMap { name in (value as? String).map { (name, $0) } }
        }
        return HTTPExchange.Response(
            status: http.statusCode, headers: headers, body: data,
            reason: HTTPURLResponse.localizedString(forStatusCode: http.statusCode))
    }
}
