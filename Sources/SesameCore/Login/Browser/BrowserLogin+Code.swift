import Foundation
import SesameAPI

extension BrowserLogin {
    /// A code typed on the hosted page. A right one signs the person in and begins the
    /// browser session; then either the application is answered, or (when it allows passkeys
    /// and the person has none) a passkey is offered first.
    ///
    /// The code is consumed, the login recorded and the session begun as one exchange
    /// (``PasswordlessLogin/exchange(_:clientID:challengeID:refusesWhileHeld:complete:)``): when a step after the
    /// consumption fails, the code is given back, so the person's retry (the same code
    /// posted again within seconds) completes the login instead of finding the code spent.
    func verifyCode(
        _ authorization: BrowserAuthorization, _ credentials: PasswordlessCredentials, _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        let application = try await application(authorization)
        guard browser.formIsGenuine else { return codeStep(application, authorization, credentials, .forgedForm) }
        do {
            let target = try await target(authorization)
            try redirect.checkParameters(authorization.parameters)
            let offers = try await offersPasskey(target, connection: credentials.connection, authorization)
            let presented = credentials.from(browser.ip)
            return try await passwordless.exchange(presented, clientID: application.clientID, refusesWhileHeld: true) {
                try await signIn($0, offeringPasskey: offers, target, authorization, browser)
            }
        } catch let error as SesameError where [.wrongCredential, .malformedRequest].contains(error.refusal) {
            var refusal = Self.codeRefusal(error)
            if refusal == .wrong, try await passwordless.isSuperseded(credentials) { refusal = .superseded }
            return codeStep(application, authorization, credentials, .wrongCode(refusal))
        }
    }

    /// Records a code login, begins its session, and answers the application or offers a
    /// passkey first; the code and the session date from the same moment.
    private func signIn(
        _ candidate: User, offeringPasskey offers: Bool, _ target: Target, _ authorization: BrowserAuthorization,
        _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        let user = try await coordinator.recordLogin(
            candidate, method: .hostedOTP, clientID: target.application.clientID, ip: browser.ip)
        let authTime = clock.now()
        guard offers else {
            let (answer, session) = try await signedIn(
                user, method: .hostedOTP, authTime: authTime, target: target, authorization, browser)
            return .answer(answer, session: session)
        }
        let session = try await beginSession(user, method: .hostedOTP, authTime: authTime, browser)
        if try await passkeys.hasPasskeys(user) { return .continueAuthorization(session: session) }
        return .offerPasskey(target.application, session: session)
    }

    /// Whether a code login offers a passkey before answering: the application allows passkey
    /// sign-in, the code's connection has passkeys on, and the answer is not posted to a
    /// frame or an opener (which could not show the offer).
    private func offersPasskey(
        _ target: Target, connection: String?, _ authorization: BrowserAuthorization
    ) async throws -> Bool {
        guard target.application.allows(GrantType.webauthn), target.mode != .webMessage,
            let connection = try await registry.connection(name: connection ?? "")
        else { return false }
        return connection.passkeyPolicy.enabled
    }

    private func codeStep(
        _ application: Application, _ authorization: BrowserAuthorization, _ credentials: PasswordlessCredentials,
        _ problem: BrowserProblem
    ) -> BrowserLoginOutcome {
        let step = CodeStep(
            recipient: credentials.username ?? "", channel: authorization.channel, resent: false, problem: problem)
        return .show(.code(step), application: application)
    }

    /// How the page words a refused code.
    static func codeRefusal(_ error: SesameError) -> CodeRefusal {
        switch error.codeFault {
        case .expired: .expired
        case .attemptsExhausted: .usedUp
        case nil: .wrong
        }
    }
}
