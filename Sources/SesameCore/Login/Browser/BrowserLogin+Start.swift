import Foundation

extension BrowserLogin {
    /// `/authorize`: answers at once from the browser's session when it can (single sign-on,
    /// `prompt=none`), otherwise shows the address form; a request that cannot be answered at
    /// its callback shows why instead.
    func authorize(_ authorization: BrowserAuthorization, _ browser: BrowserContext) async throws -> BrowserLoginOutcome {
        do {
            let outcome = try await redirect.authorize(
                clientID: authorization.clientID, redirectURI: authorization.redirectURI,
                parameters: authorization.parameters, session: try await sessions.resume(browser.sessionSecret),
                ip: browser.ip)
            switch outcome {
            case .respond(let answer): return .answer(answer, session: nil)
            case .interact(let application): return try await identifier(application, authorization)
            }
        } catch let error as SesameError where error.kind == .badRequest {
            return .show(.message(.invalidRequest(error.message)), application: nil)
        }
    }

    /// Sends a code (or, for email when asked, a link) and shows the next step; "Send a new
    /// code" comes here too. A refusal shows the step it came from again, saying why.
    func startLogin(
        _ authorization: BrowserAuthorization, _ start: BrowserStart, _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        let application = try await application(authorization)
        guard browser.formIsGenuine else { return try await identifier(application, authorization, problem: .forgedForm) }
        let channel = authorization.channel
        do {
            if channel == .email, start.sendsLink {
                return try await startLink(application, authorization, start, browser)
            }
            let started = try await passwordless.start(startRequest(application, authorization, start, browser))
            let step = CodeStep(recipient: started.recipient, channel: channel, resent: start.isResend, problem: nil)
            return .show(.code(step), application: application)
        } catch let error as SesameError where error.kind == .badRequest || error.kind == .tooManyRequests {
            guard start.isResend else {
                return try await identifier(application, authorization, problem: .startRefused(error))
            }
            let step = CodeStep(recipient: start.recipient, channel: channel, resent: false, problem: .startRefused(error))
            return .show(.code(step), application: application)
        }
    }

    /// Mails a link the person may open on any device; this browser waits with a match code.
    private func startLink(
        _ application: Application, _ authorization: BrowserAuthorization, _ start: BrowserStart,
        _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        var request = startRequest(application, authorization, start, browser)
        request.send = SendMode.link.rawValue
        request.authParams = start.authParams
        let started = try await linkRequests.start(request)
        let wait = LinkWait(recipient: started.result.recipient, match: started.matchCode, started: started, problem: nil)
        return .show(.linkSent(wait), application: application)
    }

    private func startRequest(
        _ application: Application, _ authorization: BrowserAuthorization, _ start: BrowserStart,
        _ browser: BrowserContext
    ) -> PasswordlessStartRequest {
        let channel = authorization.channel
        var request = PasswordlessStartRequest(
            clientID: authorization.clientID, clientSecret: nil, connection: channel.rawValue,
            email: channel == .email ? start.recipient : nil, phoneNumber: channel == .sms ? start.recipient : nil,
            send: "code", ip: browser.ip)
        request.hostedApplication = application
        // The page's language (ui_locales or the browser's) is the message's too.
        request.requestLanguage = start.language
        return request
    }
}
