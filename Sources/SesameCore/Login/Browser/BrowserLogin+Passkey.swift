import Foundation

extension BrowserLogin {
    /// A passkey's answer to the hosted page's challenge: the application's callback with a
    /// code, and a browser session; otherwise the address form again, saying it failed.
    func passkey(
        _ authorization: BrowserAuthorization, authSession: String?, response: Data?, _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        let application = try await application(authorization)
        guard browser.formIsGenuine else { return try await identifier(application, authorization, problem: .forgedForm) }
        do {
            let target = try await target(authorization)
            try redirect.checkParameters(authorization.parameters)
            let candidate = try await passkeys.verifiedUser(
                authSession: authSession, response: response, clientID: application.clientID, ip: browser.ip)
            let user = try await coordinator.recordLogin(
                candidate, method: .hostedPasskey, clientID: application.clientID, ip: browser.ip)
            let (answer, session) = try await signedIn(
                user, method: .hostedPasskey, authTime: clock.now(), target: target, authorization, browser)
            return .answer(answer, session: session)
        } catch let error as SesameError where [.badRequest, .forbidden, .unauthorized].contains(error.kind) {
            return try await identifier(application, authorization, problem: .passkeyFailed)
        }
    }
}
