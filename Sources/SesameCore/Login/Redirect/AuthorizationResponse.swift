import Foundation

/// How an authorization response reaches the application (OAuth 2.0 Multiple Response Type
/// Encoding Practices, Form Post Response Mode, and Auth0's `web_message`).
public enum ResponseMode: String, Sendable, CaseIterable {
    /// Parameters in the callback's query (the default for `response_type=code`).
    case query
    /// Parameters in the callback's fragment.
    case fragment
    /// An auto-submitting form POSTed to the callback.
    case formPost = "form_post"
    /// A page that posts `{type: "authorization_response", response}` to its parent frame or
    /// opener, at the callback's origin (Auth0's SPA SDK: silent authentication, popups).
    case webMessage = "web_message"
}

/// Where and how to answer an authorization request: a code and `state`, or an OAuth error.
/// The transport renders it in its ``mode``.
public struct AuthorizationResponse: Sendable {
    /// The application's callback, already checked against its allowed callbacks.
    public let redirectURI: String
    public let mode: ResponseMode
    /// `code`, `state` and `iss`, or `error`, `error_description`, `state` and `iss`, in order.
    public let parameters: [(String, String)]
    /// The user who signed in, on success (the transport begins a browser session for them).
    public let user: User?

    /// Creates a response; nil values are left out.
    public init(redirectURI: String, mode: ResponseMode, parameters: [(String, String?)], user: User? = nil) {
        self.redirectURI = redirectURI
        self.mode = mode
        self.parameters = parameters.compactMap { name, value in value.map { (name, $0) } }
        self.user = user
    }

    /// The URL to redirect to, for `query` and `fragment`.
    public var location: String {
        var components = URLComponents(string: redirectURI)!
        let items = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        if mode == .fragment {
            var encoder = URLComponents()
            encoder.queryItems = items
            components.fragment = nil
            return components.string! + "#" + Self.plusSafe(encoder.percentEncodedQuery ?? "")
        }
        components.queryItems = (components.queryItems ?? []) + items
        components.percentEncodedQuery = components.percentEncodedQuery.map(Self.plusSafe)
        return components.string!
    }

    /// The origin the callback belongs to (`web_message` posts only to it).
    public var origin: String { OriginPolicy.origin(of: redirectURI) ?? "" }

    /// Whether this is an error response.
    public var isError: Bool { parameters.contains { $0.0 == "error" } }

    /// A `+` left raw reads as a space to form decoders.
    private static func plusSafe(_ query: String) -> String { query.replacingOccurrences(of: "+", with: "%2B") }
}
