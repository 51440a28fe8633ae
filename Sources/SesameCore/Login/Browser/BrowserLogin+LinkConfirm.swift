import Foundation

extension BrowserLogin {
    /// A magic link's page posted. In the browser that asked for it (or for a link without a
    /// request), it signs this browser in and answers the application; on another device it
    /// goes through the number the asking screen shows, even when none was typed.
    func confirmLink(
        _ authorization: BrowserAuthorization, _ answer: BrowserLinkAnswer, _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        let link = try await linkRequests.request(id: answer.requestID)
        let application = try? await linkApplication(authorization, link)
        // A link to a callback the application does not allow is refused the same with or without a token.
        guard application == nil || browser.formIsGenuine else {
            return .show(.linkConfirm(linkPage(link, browser, problem: .forgedForm)), application: application)
        }
        if let link, !linkRequests.isAsker(browser.linkSecret, of: link) {
            return .show(.message(try await approve(answer, browser)), application: application)
        }
        let target: Target
        do {
            target = try await self.target(authorization)
        } catch let error as SesameError where error.kind == .badRequest {
            return .show(.message(.invalidRequest(error.message)), application: application)
        }
        do {
            try redirect.checkParameters(authorization.parameters)
            return try await signInWithLink(target, authorization, answer, browser)
        } catch let error as SesameError {
            let state = authorization.parameters.state
            return .answer(
                redirect.errorResponse(error, redirectURI: target.redirectURI, mode: target.mode, state: state), session: nil)
        }
    }

    /// Spends the link and signs this browser in: the login recorded, a code issued, the
    /// session begun, and the link's request (if any) marked completed so the asking tab,
    /// still polling, learns the link was used here.
    ///
    /// These steps run as one exchange (``PasswordlessLogin/exchange(_:clientID:challengeID:refusesWhileHeld:complete:)``):
    /// the link is consumed under a short lease and is spent for good only once every step
    /// has succeeded. When one fails (a database stall between two of them), the link is
    /// given back, the browser is told to try again, and posting the page again completes
    /// the login; it is never left spent with nothing to show. Marking the request comes
    /// last because only a request whose link is spent can be marked (the request id alone
    /// must not stop a sign-in); a retry marks it then.
    private func signInWithLink(
        _ target: Target, _ authorization: BrowserAuthorization, _ answer: BrowserLinkAnswer, _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        let clientID = target.application.clientID
        let credentials = answer.credentials.from(browser.ip)
        return try await passwordless.exchange(credentials, clientID: clientID, refusesWhileHeld: true) { candidate in
            let user = try await coordinator.recordLogin(candidate, method: .magicLink, clientID: clientID, ip: browser.ip)
            let (response, session) = try await signedIn(
                user, method: .magicLink, authTime: clock.now(), target: target, authorization, browser)
            try await linkRequests.markCompleted(id: answer.requestID)
            return .answer(response, session: session)
        }
    }

    /// On another device: the right number signs the asking browser in; a wrong one stops it.
    private func approve(_ answer: BrowserLinkAnswer, _ browser: BrowserContext) async throws -> BrowserMessage {
        do {
            _ = try await linkRequests.approve(
                id: answer.requestID, match: answer.match, credentials: answer.credentials, ip: browser.ip)
            return .matchConfirmed
        } catch let error as SesameError where error.refusal == .link(.wrongMatch) {
            return .matchWrong
        } catch let error as SesameError where [.badRequest, .forbidden, .unauthorized].contains(error.kind) {
            return .linkExpired
        }
    }
}
