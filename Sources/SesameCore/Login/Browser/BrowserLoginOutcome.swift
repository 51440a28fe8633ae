public import Foundation

/// What a browser login step ends in: a page to show, an answer to the application, or the
/// offer of a passkey. Every login that ends here has begun a browser session.
public enum BrowserLoginOutcome: Sendable {
    /// Show `page`, branded for the application when it is known.
    case show(BrowserPage, application: Application?)
    /// Answer the application at its callback (a code, or an error it should see). A login
    /// begins `session`; `endsLinkWait` says the browser's wait for a link is over.
    case answer(AuthorizationResponse, session: BrowserSessions.Begun?, endsLinkWait: Bool = false)
    /// Offer to create a passkey; the session is begun, so both "Not now" and the end of the
    /// ceremony continue the authorization from it.
    case offerPasskey(Application, session: BrowserSessions.Begun)
    /// Continue the authorization from the session just begun (the person already has a passkey).
    case continueAuthorization(session: BrowserSessions.Begun)
}

/// A page of the browser login, with what it shows.
public enum BrowserPage: Sendable {
    /// The address form.
    case identifier(IdentifierStep)
    /// The code step.
    case code(CodeStep)
    /// The wait for a magic link, with the number to type on another device.
    case linkSent(LinkWait)
    /// A magic link's own page: one click here, or the number on another device.
    case linkConfirm(LinkConfirmation)
    /// A heading and a sentence.
    case message(BrowserMessage)
}

/// Why a step is shown again.
public enum BrowserProblem: Sendable, Equatable {
    /// The form did not carry this browser's forgery token (an old page, or a forged post).
    case forgedForm
    /// Sending was refused (a bad address, no provider, a rate limit); the page says which.
    case startRefused(SesameError)
    /// The passkey did not sign the person in.
    case passkeyFailed
    /// The code was refused.
    case wrongCode(CodeRefusal)
    /// The link was not confirmed yet.
    case linkPending
}

/// Why a typed code was refused, as the page words it.
public enum CodeRefusal: Sendable, Equatable {
    /// Not the code sent (or no code was sent): the page does not say which.
    case wrong
    /// The code's lifetime is over: ask for a new one.
    case expired
    /// The code took its last wrong guess: ask for a new one.
    case usedUp
    /// A code a newer one replaced ("Send a new code", a second tab): use the newest.
    case superseded
}

/// The address form: which channel it shows and what else it offers.
public struct IdentifierStep: Sendable {
    /// The channel the form asks an address for.
    public var channel: BrowserChannel
    /// Both email and SMS are on, so the page offers the other one.
    public var offersOtherChannel: Bool
    /// The application allows passkey sign-in.
    public var offersPasskeys: Bool
    /// Why the form is shown again, if it is.
    public var problem: BrowserProblem?
    /// The application asked for the sign-up path (`prompt=create`, `screen_hint=signup`):
    /// the page speaks of creating an account and offers no passkey sign-in (a new person
    /// has none yet; the offer to create one follows the code).
    public var signsUp = false
}

/// The code step.
public struct CodeStep: Sendable {
    /// Where the code went, as the page shows it.
    public var recipient: String
    /// How it went.
    public var channel: BrowserChannel
    /// A new code was sent on request.
    public var resent: Bool
    /// Why the step is shown again, if it is.
    public var problem: BrowserProblem?
}

/// The wait for a magic link.
public struct LinkWait: Sendable {
    /// Where the link went.
    public var recipient: String
    /// The two digits to type on another device.
    public var match: String
    /// The request just begun, whose poll secret the browser keeps; nil when re-shown.
    public var started: LinkRequestStarted?
    /// Why the wait is shown again, if it is.
    public var problem: BrowserProblem?

    /// Creates a wait.
    public init(recipient: String, match: String, started: LinkRequestStarted? = nil, problem: BrowserProblem? = nil) {
        self.recipient = recipient
        self.match = match
        self.started = started
        self.problem = problem
    }
}

/// A magic link's own page.
public struct LinkConfirmation: Sendable {
    /// Opened on another device than the one that asked: the page asks for the number, and
    /// says who asked, from where and when, so a person can tell a stranger's request.
    public var asksForMatch: Bool
    /// The asker's address, when known (on another device only).
    public var askedFrom: String?
    /// When the link was asked for (on another device only).
    public var askedAt: Date?
    /// Why the page is shown again, if it is.
    public var problem: BrowserProblem?
}

/// The pages that are a heading and a sentence.
public enum BrowserMessage: Sendable, Equatable {
    /// The request cannot be answered at the application's callback: its message says why.
    case invalidRequest(String)
    /// A link that is spent, expired or unknown.
    case linkExpired
    /// The waiting browser's link request expired or was used: start with an address again.
    case linkWaitExpired
    /// The sign-in was refused on the other device.
    case linkDenied(recipient: String)
    /// On another device: the right number, so the asking browser is signed in.
    case matchConfirmed
    /// On another device: a wrong number stopped the sign-in.
    case matchWrong
    /// On another device: the person said it was not them.
    case linkRefused
}
