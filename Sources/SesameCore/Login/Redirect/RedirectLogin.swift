public import Foundation

/// The authorization requests that end in a browser redirect to the application's callback
/// (`/authorize` and magic links): their checks, the answer a browser session gives without
/// asking (single sign-on), and the answers with a code or an OAuth error. ``BrowserLogin``
/// runs the logins themselves. Only an unknown client or a callback URL the application does
/// not allow stops the response (RFC 6749 §4.1.2.1: never redirect to an unverified URI).
public struct RedirectLogin: Sendable {
    let applications: any ApplicationRepository
    let tokens: TokenService
    let coordinator: LoginCoordinator
    let clock: any SesameClock
    /// Records the applications a browser session answers (single sign-on included).
    let sessionApplications: SessionApplications

    /// What `/authorize` does next.
    public enum Outcome: Sendable {
        /// Answer the application now: a code from the browser session, or an error.
        case respond(AuthorizationResponse)
        /// Show the login page.
        case interact(Application)
    }

    /// The application `clientID` names; throws a 400 when there is none.
    public func application(clientID: String) async throws -> Application {
        guard let application = try await applications.application(clientID: clientID) else {
            throw SesameError.invalidRequest("The link names an unknown application.")
        }
        return application
    }

    /// The application and callback the link names, checked; throws a 400 when either is bad.
    public func target(clientID: String?, redirectURI: String?) async throws -> (Application, String) {
        guard let clientID else { throw SesameError.invalidRequest("The link names an unknown application.") }
        let application = try await application(clientID: clientID)
        guard let redirectURI, application.allowsCallback(redirectURI) else {
            throw SesameError.invalidRequest("redirect_uri is not an allowed callback URL of the application.")
        }
        return (application, redirectURI)
    }

    /// The target of an authorization request, with its response mode checked: `web_message`
    /// posts to the callback's origin, so that origin must be an allowed web origin.
    /// - Throws: 400 for an unknown client, a callback or response mode it does not allow;
    ///   the page shows these, since answering the application would be unsafe.
    public func checkedTarget(clientID: String?, redirectURI: String?, parameters: AuthorizeParameters) async throws -> (
        Application, String, ResponseMode
    ) {
        let (application, redirectURI) = try await target(clientID: clientID, redirectURI: redirectURI)
        let raw = parameters.responseMode ?? ResponseMode.query.rawValue
        guard let mode = ResponseMode(rawValue: raw) else {
            throw SesameError.invalidRequest("response_mode must be one of: query, fragment, form_post, web_message.")
        }
        if mode == .webMessage {
            guard let origin = OriginPolicy.origin(of: redirectURI), application.allowedOrigins.contains(origin) else {
                throw SesameError.invalidRequest(
                    "response_mode=web_message needs the redirect_uri's origin among the application's allowed web origins.")
            }
        }
        return (application, redirectURI, mode)
    }

    /// `/authorize`: answers at once from a live browser session unless the request asks to
    /// log in again or the session is older than `max_age`; with `prompt=none` and no such
    /// session, answers `login_required` instead of showing the page.
    public func authorize(
        clientID: String?, redirectURI: String?, parameters: AuthorizeParameters, session: (BrowserSession, User)?,
        ip: String?
    ) async throws -> Outcome {
        let (application, redirectURI, mode) = try await checkedTarget(
            clientID: clientID, redirectURI: redirectURI, parameters: parameters)
        do {
            try checkParameters(parameters)
            // An audience that names no API is refused before the page is shown, as Auth0
            // answers: nobody signs in for a token that could never be issued.
            _ = try await tokens.issuer.api(for: parameters.audience)
            let prompts = parameters.prompts
            // Asked to log in again or to create an account: the page, not the session, answers.
            if let (browser, user) = session, !prompts.contains("login"), !parameters.asksToSignUp,
                fresh(browser, maxAge: parameters.maxAge)
            {
                let code = try await tokens.issueAuthorizationCode(
                    user: user, application: application, redirectURI: redirectURI, parameters: parameters,
                    authTime: browser.authTime, sessionID: browser.id)
                try await sessionApplications.record(browser, clientID: application.clientID)
                await coordinator.audit(
                    .sessionLogin, user: user.userID, client: application.clientID, ip: ip, detail: "session \(browser.id)")
                return .respond(codeResponse(code, redirectURI: redirectURI, mode: mode, state: parameters.state))
            }
            if prompts.contains("none") {
                throw SesameError(.badRequest, "login_required", "Login required")
            }
            return .interact(application)
        } catch let error as SesameError where error.kind == .badRequest || error.code == .accessDenied {
            return .respond(errorResponse(error, redirectURI: redirectURI, mode: mode, state: parameters.state))
        }
    }

    /// Answers the application for a person whose login is already recorded: a magic link
    /// confirmed on another device, finished in the browser that asked for it; `authTime` is
    /// when they proved who they are.
    public func respond(
        for user: User, clientID: String?, redirectURI: String?, parameters: AuthorizeParameters, authTime: Date?
    ) async throws -> AuthorizationResponse {
        let (application, redirectURI, mode) = try await checkedTarget(
            clientID: clientID, redirectURI: redirectURI, parameters: parameters)
        do {
            try checkParameters(parameters)
            let code = try await tokens.issueAuthorizationCode(
                user: user, application: application, redirectURI: redirectURI, parameters: parameters, authTime: authTime)
            return codeResponse(code, redirectURI: redirectURI, mode: mode, state: parameters.state, user: user)
        } catch let error as SesameError where error.kind == .badRequest {
            return errorResponse(error, redirectURI: redirectURI, mode: mode, state: parameters.state)
        }
    }

    /// `error` as an OAuth error response (RFC 6749 §4.1.2.1).
    public func errorResponse(_ error: SesameError, redirectURI: String, mode: ResponseMode, state: String?)
        -> AuthorizationResponse
    {
        // RFC 6749 §4.1.2.1 has no code for a refused credential or user: the user denied access.
        let code: SesameError.Code = error.refusal == .wrongCredential || error == .userBlocked ? .accessDenied : error.code
        return AuthorizationResponse(
            redirectURI: redirectURI, mode: mode,
            parameters: [
                ("error", code.rawValue), ("error_description", error.message), ("state", state), ("iss", issuer),
            ])
    }

    /// A successful answer: the code, `state`, and `iss`.
    func codeResponse(_ code: String, redirectURI: String, mode: ResponseMode, state: String?, user: User? = nil)
        -> AuthorizationResponse
    {
        AuthorizationResponse(
            redirectURI: redirectURI, mode: mode, parameters: [("code", code), ("state", state), ("iss", issuer)],
            user: user)
    }

    /// Every answer names its issuer (RFC 9207), so an application talking to several servers
    /// can tell which one answered and refuse a code another server's answer slipped in
    /// (a mix-up attack).
    var issuer: String { tokens.issuer.settings.issuer }

    /// Checks `response_type`, the PKCE method, `prompt` and `max_age` before anything is spent.
    public func checkParameters(_ parameters: AuthorizeParameters) throws {
        if let type = parameters.responseType, type != "code" {
            throw SesameError(.badRequest, .unsupportedResponseType, "Only response_type=code is supported.")
        }
        if parameters.codeChallenge != nil, parameters.codeChallengeMethod != "S256" {
            throw SesameError.invalidRequest("code_challenge_method must be S256.")
        }
        let prompts = parameters.prompts
        guard prompts.isSubset(of: Self.prompts) else {
            throw SesameError.invalidRequest("prompt must be none, login, consent, select_account or create.")
        }
        if prompts.contains("none"), prompts.count > 1 {
            throw SesameError.invalidRequest("prompt=none cannot be combined with other values.")
        }
        if let maxAge = parameters.maxAge, Int(maxAge).map({ $0 >= 0 }) != true {
            throw SesameError.invalidRequest("max_age must be a whole number of seconds.")
        }
    }

    /// The `prompt` values Sesame accepts (discovery lists them).
    public static let prompts: Set<String> = ["none", "login", "consent", "select_account", "create"]

    /// Whether a session's last proof of identity is within `max_age` seconds.
    private func fresh(_ session: BrowserSession, maxAge: String?) -> Bool {
        guard let seconds = maxAge.flatMap(Int.init) else { return true }
        return clock.now().timeIntervalSince(session.authTime) <= TimeInterval(seconds)
    }
}
