public import Foundation

/// A magic-link confirmation (`POST /passwordless/verify_redirect`), already decoded.
public struct MagicLinkConfirmation: Sendable {
    public var clientID: String?
    public var credentials: PasswordlessCredentials
    public var redirectURI: String?
    public var parameters: AuthorizeParameters
    public var ip: String?

    /// Creates a confirmation.
    public init(
        clientID: String?, credentials: PasswordlessCredentials, redirectURI: String?, parameters: AuthorizeParameters,
        ip: String?
    ) {
        self.clientID = clientID
        self.credentials = credentials
        self.redirectURI = redirectURI
        self.parameters = parameters
        self.ip = ip
    }
}

/// The logins that end in a browser redirect to the application's callback with an
/// authorization code: a magic link, and the hosted `/authorize` page's code and passkey
/// sign-ins. Only an unknown client or a callback URL the application does not allow stops
/// the redirect (RFC 6749 §4.1.2.1: never redirect to an unverified URI).
public struct RedirectLogin: Sendable {
    let applications: any ApplicationRepository
    let passwordless: PasswordlessLogin
    let passkeys: PasskeyLogin
    let tokens: TokenService
    let coordinator: LoginCoordinator

    /// The application and callback the link names, checked; throws a 400 when either is bad.
    public func target(clientID: String?, redirectURI: String?) async throws -> (Application, String) {
        guard let clientID, let application = try await applications.application(clientID: clientID) else {
            throw SesameError.invalidRequest("The link names an unknown application.")
        }
        guard let redirectURI, application.allowsCallback(redirectURI) else {
            throw SesameError.invalidRequest("redirect_uri is not an allowed callback URL of the application.")
        }
        return (application, redirectURI)
    }

    /// Consumes the link and returns the URL to redirect to: the callback with a code, or
    /// with an OAuth error when the secret or the parameters are refused.
    public func confirm(_ confirmation: MagicLinkConfirmation) async throws -> String {
        let (_, redirectURI) = try await target(clientID: confirmation.clientID, redirectURI: confirmation.redirectURI)
        do {
            return try await complete(confirmation, method: .magicLink)
        } catch let error as SesameError {
            return errorRedirect(error, redirectURI: redirectURI, state: confirmation.parameters.state)
        }
    }

    /// Consumes the secret and returns the callback URL with an authorization code.
    /// - Throws: the ``SesameError`` that refused it (the hosted login page shows it).
    public func complete(_ confirmation: MagicLinkConfirmation, method: LoginMethod) async throws -> String {
        let (application, redirectURI) = try await target(clientID: confirmation.clientID, redirectURI: confirmation.redirectURI)
        try checkParameters(confirmation.parameters)
        let candidate = try await passwordless.consume(confirmation.credentials, clientID: application.clientID)
        return try await callback(
            candidate, method: method, application: application, redirectURI: redirectURI,
            parameters: confirmation.parameters, ip: confirmation.ip)
    }

    /// A passkey sign-in on the hosted login page: verifies the answer to a challenge from
    /// `/passkey/challenge` and returns the callback URL with an authorization code.
    /// - Throws: the ``SesameError`` that refused it (the page shows it).
    public func completeWithPasskey(
        clientID: String?, redirectURI: String?, parameters: AuthorizeParameters, authSession: String?, response: Data?,
        ip: String?
    ) async throws -> String {
        let (application, redirectURI) = try await target(clientID: clientID, redirectURI: redirectURI)
        try checkParameters(parameters)
        let candidate = try await passkeys.verifiedUser(
            authSession: authSession, response: response, clientID: application.clientID, ip: ip)
        return try await callback(
            candidate, method: .hostedPasskey, application: application, redirectURI: redirectURI, parameters: parameters,
            ip: ip)
    }

    /// Records the login and returns the callback URL with a fresh authorization code.
    private func callback(
        _ candidate: User, method: LoginMethod, application: Application, redirectURI: String, parameters: AuthorizeParameters,
        ip: String?
    ) async throws -> String {
        let user = try await coordinator.recordLogin(
            candidate, method: method, clientID: application.clientID, ip: ip)
        let code = try await tokens.issueAuthorizationCode(
            user: user, application: application, redirectURI: redirectURI, parameters: parameters)
        return Self.append(to: redirectURI, [("code", code), ("state", parameters.state)])
    }

    /// The callback URL carrying `error` as an OAuth error response (RFC 6749 §4.1.2.1).
    public func errorRedirect(_ error: SesameError, redirectURI: String, state: String?) -> String {
        // RFC 6749 §4.1.2.1 has no code for a refused credential or user: the user denied access.
        let code: SesameError.Code = [.invalidGrant, .unauthorized].contains(error.code) ? .accessDenied : error.code
        return Self.append(to: redirectURI, [("error", code.rawValue), ("error_description", error.message), ("state", state)])
    }

    /// Checks `response_type` and the PKCE method before anything is spent.
    public func checkParameters(_ parameters: AuthorizeParameters) throws {
        if let type = parameters.responseType, type != "code" {
            throw SesameError(.badRequest, .unsupportedResponseType, "Only response_type=code is supported.")
        }
        if parameters.codeChallenge != nil, parameters.codeChallengeMethod != "S256" {
            throw SesameError.invalidRequest("code_challenge_method must be S256.")
        }
    }

    /// `uri` with query parameters appended (nil values skipped).
    static func append(to uri: String, _ items: [(String, String?)]) -> String {
        var components = URLComponents(string: uri)!
        var query = components.queryItems ?? []
        query += items.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        components.queryItems = query
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string!
    }
}
