import Foundation

extension BrowserLogin {
    /// The application a step's page is branded for when it is shown again (after the POST
    /// that made it, Post/Redirect/Get): the one `authorization` names, when it allows the
    /// callback; nil otherwise, so the page is never branded for a request it would refuse.
    public func reshownApplication(_ authorization: BrowserAuthorization) async -> Application? {
        try? await application(authorization)
    }

    /// The user whose live session the browser presents, if any: a step shown again after the
    /// login finished (Back, Reload) offers to continue as them instead of a dead form.
    public func signedInUser(_ browser: BrowserContext) async throws -> User? {
        try await sessions.resume(browser.sessionSecret)?.1
    }
}
