public import Foundation

/// The browser a page-level command comes from: what its cookies carry and where it is.
public struct BrowserContext: Sendable {
    /// The browser session's secret (`sesame_session`), if the browser sent one.
    public var sessionSecret: String?
    /// The poll secret of a magic link this browser waits for (`sesame_link`), if any.
    public var linkSecret: String?
    /// Whether the posted form carries this browser's forgery token (the transport checks the
    /// token, which lives in its cookies; Core decides what a forged form is answered with).
    public var formIsGenuine: Bool
    /// The client's address.
    public var ip: String
    /// The browser's `User-Agent`, kept on its session.
    public var userAgent: String?

    /// Creates a context.
    public init(sessionSecret: String?, linkSecret: String?, formIsGenuine: Bool, ip: String, userAgent: String?) {
        self.sessionSecret = sessionSecret
        self.linkSecret = linkSecret
        self.formIsGenuine = formIsGenuine
        self.ip = ip
        self.userAgent = userAgent
    }
}

/// How the hosted page reaches the person.
public enum BrowserChannel: String, Sendable {
    /// A code or a link by email.
    case email
    /// A code by text message.
    case sms
}

/// The authorization request a hosted page carries from step to step: the application, its
/// callback, the authorize parameters, and the channel the page shows.
public struct BrowserAuthorization: Sendable {
    /// The application, as `client_id` names it.
    public var clientID: String?
    /// The callback to answer at; checked against the application's before any answer.
    public var redirectURI: String?
    /// The other authorize parameters, as received.
    public var parameters: AuthorizeParameters
    /// What the person chose, else the application's hint, else email.
    public var channel: BrowserChannel

    /// Creates a request.
    public init(clientID: String?, redirectURI: String?, parameters: AuthorizeParameters, channel: BrowserChannel = .email) {
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.parameters = parameters
        self.channel = channel
    }
}

/// "Send me a code" (or a link) on the hosted page.
public struct BrowserStart: Sendable {
    /// The address typed, a phone number already in E.164 when it could be read as one.
    public var recipient: String
    /// Whether email should carry a link the person may open on any device, not a code.
    public var sendsLink: Bool
    /// "Send a new code" on the code step.
    public var isResend: Bool
    /// The page's language, which the message uses too.
    public var language: String?
    /// The authorize parameters the link carries back.
    public var authParams: [String: String]

    /// Creates a start.
    public init(recipient: String, sendsLink: Bool, isResend: Bool, language: String?, authParams: [String: String]) {
        self.recipient = recipient
        self.sendsLink = sendsLink
        self.isResend = isResend
        self.language = language
        self.authParams = authParams
    }
}

/// What a magic link's page posts: its secret, its request (when the hosted page asked for
/// it), and on another device the number the person typed.
public struct BrowserLinkAnswer: Sendable {
    /// The link's connection, address and secret.
    public var credentials: PasswordlessCredentials
    /// The link request's id (`request`), when a hosted page's wait sent the link.
    public var requestID: String?
    /// The two digits typed on another device.
    public var match: String?

    /// Creates an answer.
    public init(credentials: PasswordlessCredentials, requestID: String?, match: String? = nil) {
        self.credentials = credentials
        self.requestID = requestID
        self.match = match
    }
}

extension BrowserLogin {
    /// One step of a browser login, as a page posts or opens it.
    public enum Command: Sendable {
        /// `/authorize`: answer from the browser's session, or show the address form.
        case authorize(BrowserAuthorization)
        /// Send a code or a link.
        case start(BrowserAuthorization, BrowserStart)
        /// A code typed on the code step.
        case verifyCode(BrowserAuthorization, PasswordlessCredentials)
        /// A passkey's answer to the page's challenge.
        case passkey(BrowserAuthorization, authSession: String?, response: Data?)
        /// The waiting browser finishes a link confirmed on another device; `recipient` and
        /// `match` are what its page showed.
        case completeLink(BrowserAuthorization, recipient: String, match: String)
        /// A magic link's page opened (nothing is spent).
        case openLink(BrowserAuthorization, requestID: String?)
        /// A magic link's page posted: signs this browser in, or on another device the asker.
        case confirmLink(BrowserAuthorization, BrowserLinkAnswer)
        /// "It wasn't me" on a magic link's page.
        case refuseLink(BrowserAuthorization, BrowserLinkAnswer)
    }
}
