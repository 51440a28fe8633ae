import Foundation

/// The browser login, whole: the hosted `/authorize` page and the magic-link pages. A
/// transport decodes a page's request into a ``Command``, makes this one call, and renders
/// the ``BrowserLoginOutcome`` (in the manner of dex's `server/authflow`). Every step that
/// signs someone in also begins their browser session here, so no page can answer an
/// application without the session, or begin one without the login.
///
/// ```swift
/// let outcome = try await sesame.browserLogin.run(.verifyCode(authorization, credentials), from: browser)
/// ```
public struct BrowserLogin: Sendable {
    let redirect: RedirectLogin
    let passwordless: PasswordlessLogin
    let linkRequests: LinkRequests
    let passkeys: PasskeyLogin
    let sessions: BrowserSessions
    let registry: Registry
    let tokens: TokenService
    let coordinator: LoginCoordinator
    let clock: any SesameClock

    /// Runs one step of a browser login.
    /// - Throws: 400 for an unknown application or a callback it does not allow on a posted
    ///   page (never redirected to), and the errors the page does not show (a blocked user, a
    ///   storage failure).
    public func run(_ command: Command, from browser: BrowserContext) async throws -> BrowserLoginOutcome {
        switch command {
        case .authorize(let authorization): try await authorize(authorization, browser)
        case .start(let authorization, let start): try await startLogin(authorization, start, browser)
        case .verifyCode(let authorization, let credentials): try await verifyCode(authorization, credentials, browser)
        case .passkey(let authorization, let authSession, let response):
            try await passkey(authorization, authSession: authSession, response: response, browser)
        case .completeLink(let authorization, let recipient, let match):
            try await completeLink(authorization, LinkWait(recipient: recipient, match: match), browser)
        case .openLink(let authorization, let requestID): try await openLink(authorization, requestID: requestID, browser)
        case .confirmLink(let authorization, let answer): try await confirmLink(authorization, answer, browser)
        case .refuseLink(let authorization, let answer): try await refuseLink(authorization, answer, browser)
        }
    }

    /// The address form for `application`, offering the other channel when both are on.
    func identifier(
        _ application: Application, _ authorization: BrowserAuthorization, problem: BrowserProblem? = nil
    ) async throws -> BrowserLoginOutcome {
        let email = try await registry.connection(name: BrowserChannel.email.rawValue)?.enabled == true
        let sms = try await registry.connection(name: BrowserChannel.sms.rawValue)?.enabled == true
        let signsUp = authorization.parameters.asksToSignUp
        var step = IdentifierStep(
            channel: !sms ? .email : (!email ? .sms : authorization.channel), offersOtherChannel: email && sms,
            offersPasskeys: application.allows(GrantType.webauthn) && !signsUp, problem: problem)
        step.signsUp = signsUp
        return .show(.identifier(step), application: application)
    }

    /// Begins the browser session of a login approved at `authTime`.
    func beginSession(
        _ user: User, method: LoginMethod, authTime: Date, _ browser: BrowserContext
    ) async throws -> BrowserSessions.Begun {
        try await sessions.begin(
            user: user, method: method, presented: browser.sessionSecret, ip: browser.ip, userAgent: browser.userAgent,
            authTime: authTime)
    }

    /// A code for the application, and the session of the same login, both dated `authTime`.
    func signedIn(
        _ user: User, method: LoginMethod, authTime: Date, target: Target,
        _ authorization: BrowserAuthorization, _ browser: BrowserContext
    ) async throws -> (AuthorizationResponse, BrowserSessions.Begun) {
        // The session first: the code names it, so the id_token carries its `sid`.
        let begun = try await beginSession(user, method: method, authTime: authTime, browser)
        let code = try await tokens.issueAuthorizationCode(
            user: user, application: target.application, redirectURI: target.redirectURI,
            parameters: authorization.parameters, authTime: authTime, sessionID: begun.session.id)
        try await sessions.answered(begun.session, clientID: target.application.clientID)
        let response = redirect.codeResponse(
            code, redirectURI: target.redirectURI, mode: target.mode, state: authorization.parameters.state, user: user)
        return (response, begun)
    }

    /// The application a posted page names, after checking that the callback is one it
    /// allows; the response mode is checked when the application is answered.
    /// - Throws: 400 for an unknown application or a callback it does not allow.
    func application(_ authorization: BrowserAuthorization) async throws -> Application {
        try await redirect.target(clientID: authorization.clientID, redirectURI: authorization.redirectURI).0
    }

    /// Where and how the application is answered.
    struct Target {
        let application: Application
        let redirectURI: String
        let mode: ResponseMode
    }

    /// The application, callback and response mode of `authorization`, checked.
    func target(_ authorization: BrowserAuthorization) async throws -> Target {
        let (application, redirectURI, mode) = try await redirect.checkedTarget(
            clientID: authorization.clientID, redirectURI: authorization.redirectURI, parameters: authorization.parameters)
        return Target(application: application, redirectURI: redirectURI, mode: mode)
    }
}
