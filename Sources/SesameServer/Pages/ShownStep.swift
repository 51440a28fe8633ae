import Crypto
import Foundation
import Hummingbird
import SesameCore

/// A step of the hosted login as its page shows it, kept so that the page a POST leads to
/// is a GET (Post/Redirect/Get): Reload shows the step again without sending anything, and
/// Back never asks to resubmit a form. Everything here is what the page showed (the address
/// the person typed, the words of its alert); no secret, since the cookie is only signed.
struct ShownStep: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
        /// The address form, shown again with why.
        case identifier
        /// The code step.
        case code
        /// The wait for a magic link.
        case link
        /// The offer to create a passkey, after a code login.
        case offer
        /// The wait ended: the link was refused on another device.
        case linkDenied
        /// The wait ended: the link request expired or was used.
        case linkWaitExpired
        /// A magic link's own page after its POST: what happened (a ``BrowserMessage``, named
        /// in `notice`), so that Reload neither posts the link again nor calls it expired.
        case linkPage
    }

    var kind: Kind
    var channel: BrowserChannel.RawValue
    var recipient = ""
    /// The number the waiting page shows.
    var match: String?
    var offersOtherChannel = false
    var offersPasskeys = false
    /// The application asked for the sign-up path (`prompt=create`, `screen_hint=signup`).
    var signsUp = false
    /// A sentence in the page's status line ("a new code was sent").
    var notice: String?
    /// The words of the page's alert, and the status it was shown with.
    var error: String?
    var status = 200
    /// The authorization request this step belongs to (a digest of its parameters): another
    /// tab's request finds no step and starts from its own address form.
    var request = ""

    /// The digest of the authorization `form` carries (its fields `names`; a link's page adds
    /// the link's own, so that another link is not shown this one's end).
    static func request(of form: AuthorizeForm, names: [String] = AuthorizeForm.names) -> String {
        let text = names.compactMap { name in form.values[name].map { "\(name)=\($0)" } }.joined(separator: "\n")
        return SHA256.hash(data: Data(text.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }
}

/// `sesame_step`: the step a browser's login page is at (``ShownStep``), signed, for as long
/// as a code lives; cleared once the login answers the application.
struct StepCookie: Sendable {
    let cookie: BrowserCookie
    let tokens: FormTokens

    init(settings: LoginSettings, tokens: FormTokens) {
        cookie = BrowserCookie("sesame_step", settings: settings, lifetime: 900)
        self.tokens = tokens
    }

    /// The step `request`'s browser is at in the login `form` carries, if any.
    func step(in request: Request, for form: AuthorizeForm, names: [String] = AuthorizeForm.names) -> ShownStep? {
        guard let value = tokens.verified(cookie.secret(in: request)),
            let step = try? JSONDecoder().decode(ShownStep.self, from: Data(value.utf8)),
            step.request == ShownStep.request(of: form, names: names)
        else { return nil }
        return step
    }

    /// The cookie keeping `step`.
    func setting(_ step: ShownStep) -> Cookie {
        let json = (try? JSONEncoder().encode(step)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return cookie.setting(tokens.signed(json))
    }

    var clearing: Cookie { cookie.clearing }
}
