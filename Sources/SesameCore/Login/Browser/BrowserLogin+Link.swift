import Foundation

extension BrowserLogin {
    /// The waiting browser finishes a link confirmed on another device: the application is
    /// answered, and the session begun, as of the approval, when the person proved who they
    /// are (the token endpoint's magic-link grant dates its tokens the same way).
    ///
    /// The request is finished last: the code and the session are made first, and only the
    /// request's transition to completed (the single-use gate) lets them reach the browser.
    /// When a step fails, the request stays approved and the page's retry completes it; a
    /// request that another post finished first discards what this one made.
    func completeLink(
        _ authorization: BrowserAuthorization, _ wait: LinkWait, _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        let application = try await application(authorization)
        var wait = wait
        guard browser.formIsGenuine else {
            wait.problem = .forgedForm
            return .show(.linkSent(wait), application: application)
        }
        let approved: (request: LinkRequest, user: User)
        do {
            approved = try await linkRequests.approved(pollSecret: browser.linkSecret, clientID: application.clientID)
        } catch let error as SesameError {
            guard let message = Self.linkWaitMessage(error, recipient: wait.recipient) else {
                guard error.refusal == .link(.pending) else { throw error }
                wait.problem = .linkPending
                return .show(.linkSent(wait), application: application)
            }
            return .show(.message(message), application: application)
        }
        return try await finish(approved.request, approved.user, application, authorization, browser)
    }

    /// Answers the application for an approved request and begins the session, then finishes
    /// the request.
    private func finish(
        _ request: LinkRequest, _ user: User, _ application: Application, _ authorization: BrowserAuthorization,
        _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        let authTime = request.decidedAt ?? clock.now()
        let answer = try await redirect.respond(
            for: user, clientID: authorization.clientID, redirectURI: authorization.redirectURI,
            parameters: authorization.parameters, authTime: authTime)
        var session: BrowserSessions.Begun?
        if let user = answer.user {
            session = try await beginSession(user, method: .magicLink, authTime: authTime, browser)
        }
        guard try await linkRequests.finishApproved(request) else {
            if let session { try await sessions.discard(session.session) }
            return .show(.message(.linkWaitExpired), application: application)
        }
        return .answer(answer, session: session, endsLinkWait: true)
    }

    /// What the waiting page says when its request cannot be finished; nil for "still waiting"
    /// and for errors the page does not show.
    private static func linkWaitMessage(_ error: SesameError, recipient: String) -> BrowserMessage? {
        if error.refusal == .link(.denied) { return .linkDenied(recipient: recipient) }
        if error.refusal == .link(.expired) || error == .userBlocked { return .linkWaitExpired }
        return nil
    }

    /// A magic link's page, opened: the one-click form, or the match-code form on another
    /// device. Nothing is consumed by opening it, so mail scanners that fetch links cannot
    /// burn them.
    func openLink(
        _ authorization: BrowserAuthorization, requestID: String?, _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        let link = try await linkRequests.request(id: requestID)
        let application: Application
        do {
            application = try await linkApplication(authorization, link)
        } catch let error as SesameError {
            return .show(.message(.invalidRequest(error.message)), application: nil)
        }
        if let link, link.status != .pending { return .show(.message(.linkExpired), application: application) }
        return .show(.linkConfirm(linkPage(link, browser)), application: application)
    }

    /// "It wasn't me": the link dies and the asking browser is told.
    func refuseLink(
        _ authorization: BrowserAuthorization, _ answer: BrowserLinkAnswer, _ browser: BrowserContext
    ) async throws -> BrowserLoginOutcome {
        let link = try await linkRequests.request(id: answer.requestID)
        let application = try? await linkApplication(authorization, link)
        guard browser.formIsGenuine else {
            return .show(.linkConfirm(linkPage(link, browser, problem: .forgedForm)), application: application)
        }
        do {
            try await linkRequests.deny(id: answer.requestID, credentials: answer.credentials)
            return .show(.message(.linkRefused), application: application)
        } catch let error as SesameError where [.badRequest, .forbidden, .unauthorized].contains(error.kind) {
            return .show(.message(.linkExpired), application: application)
        }
    }

    /// The application a link is for: its request's, or the one its callback names.
    func linkApplication(_ authorization: BrowserAuthorization, _ link: LinkRequest?) async throws -> Application {
        if let link, authorization.redirectURI == nil {
            return try await redirect.application(clientID: link.clientID)
        }
        return try await application(authorization)
    }

    /// The link's page; on another device it says who asked, from where and when, so a person
    /// who sees an application, a place or a time that is not theirs can tell it was not them
    /// before typing any number.
    func linkPage(_ link: LinkRequest?, _ browser: BrowserContext, problem: BrowserProblem? = nil) -> LinkConfirmation {
        let matching = link.map { !linkRequests.isAsker(browser.linkSecret, of: $0) } ?? false
        return LinkConfirmation(
            asksForMatch: matching, askedFrom: matching ? link?.ip : nil, askedAt: matching ? link?.createdAt : nil,
            problem: problem)
    }
}
