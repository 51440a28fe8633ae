import Foundation
import Hummingbird
import SesameCore
import SesameParsers

extension Request {
    /// The client's credentials: `client_id` and `client_secret` from the body, or HTTP Basic
    /// (RFC 6749 §2.3.1) for what the body leaves out; and how the secret came (in the body, a
    /// Basic header, or not at all).
    func presentedCredentials(_ body: RequestParameters) throws -> (
        id: String?, secret: String?, method: TokenEndpointAuthMethod
    ) {
        var clientID = try body.string("client_id")
        var secret = try body.string("client_secret")
        var method: TokenEndpointAuthMethod = secret == nil ? .none : .clientSecretPost
        if let basic = BasicCredentials(headers[.authorization]) {
            clientID = clientID ?? basic.user
            if secret == nil { (secret, method) = (basic.password, .clientSecretBasic) }
        }
        return (clientID, secret, method)
    }
}

extension ClientAuthenticator {
    /// The application the request's client credentials authenticate.
    /// - Throws: 401 `invalid_client` as ``authenticate(clientID:clientSecret:)``.
    func authenticate(_ request: Request, _ body: RequestParameters) async throws -> SesameCore.Application {
        let (clientID, secret, method) = try request.presentedCredentials(body)
        return try await authenticate(clientID: clientID, clientSecret: secret, presentedWith: method)
    }
}

/// `Authorization: Basic base64(urlencode(id):urlencode(secret))`.
struct BasicCredentials {
    let user: String
    let password: String

    init?(_ header: String?) {
        guard let header, header.lowercased().hasPrefix("basic "),
            let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: data, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        user = String(text[..<colon]).removingPercentEncoding ?? String(text[..<colon])
        let rest = String(text[text.index(after: colon)...])
        password = rest.removingPercentEncoding ?? rest
    }
}
