import Foundation
import Hummingbird
import SesameCore
import SesameParsers

/// The authorize parameters a login page carries from step to step in hidden fields, and
/// what the person typed or chose on the way.
struct AuthorizeForm {
    let values: [String: String]

    init(_ values: [String: String]) {
        self.values = values
    }

    var clientID: String? { values["client_id"] }
    var redirectURI: String? { values["redirect_uri"] }

    var parameters: AuthorizeParameters { AuthorizeParameters { values[$0] } }

    /// The authorization request this page carries, as Core's browser login reads it.
    var authorization: BrowserAuthorization {
        BrowserAuthorization(clientID: clientID, redirectURI: redirectURI, parameters: parameters, channel: channel)
    }

    /// Every authorize parameter the page reads from the query and carries between steps;
    /// anything else (`auth0Client`, SDK options) is ignored.
    static let names = ["client_id", "redirect_uri"] + AuthorizeParameters.names

    /// The authorize parameters, to carry to the next step.
    var hiddenFields: [(String, String)] {
        Self.names.compactMap { name in values[name].map { (name, $0) } }
    }

    /// The sign-in channel the page shows: what the person chose (`channel`), else the
    /// application's `connection` hint, else email.
    var channel: Channel {
        if let chosen = values["channel"].flatMap(Channel.init(rawValue:)) { return chosen }
        if values["username"]?.hasPrefix("+") == true { return .sms }
        return parameters.connection == "sms" ? .sms : .email
    }

    /// `/authorize` (or `path`, a step of its page) again with these parameters, `changes`
    /// applied (nil removes one). The pages link here to start over or to continue from the
    /// browser session.
    func authorizeURL(_ changes: [String: String?] = [:], path: String = "/authorize") -> String {
        var fields = hiddenFields.filter { changes[$0.0] == nil }
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value { fields.append((name, value)) }
        }
        var components = URLComponents()
        components.path = path
        components.queryItems = fields.map { URLQueryItem(name: $0.0, value: $0.1) }
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? path
    }

    /// Continues to the application from the session just begun: the same request, but one
    /// that does not ask for a login or a sign-up again (the account exists now).
    var continueURL: String {
        let prompts = parameters.prompts.subtracting(["login", "create"]).sorted().joined(separator: " ")
        return authorizeURL(["prompt": prompts.isEmpty ? nil : prompts, "screen_hint": nil])
    }

    /// The authorize parameters of a page's query (a GET of the page or of one of its steps).
    /// Decoded as a form, so "+" is a space (`scope=openid+email`, a state with spaces).
    static func query(of request: Hummingbird.Request) -> AuthorizeForm {
        let query = FormDecoding.decode(request.uri.query ?? "")
        return AuthorizeForm(query.filter { names.contains($0.key) && !$0.value.isEmpty })
    }

    /// How the page reaches the person.
    typealias Channel = BrowserChannel
}
