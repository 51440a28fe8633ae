/// Authorize parameters of a browser login (Auth0's `authParams`), as received: the hosted
/// page carries them from step to step, and ``RedirectLogin`` checks them.
public struct AuthorizeParameters: Sendable, Equatable {
    public var responseType: String?
    public var state: String?
    public var scope: String?
    public var nonce: String?
    public var audience: String?
    public var codeChallenge: String?
    public var codeChallengeMethod: String?
    /// `none`, `login` (OIDC Core §3.1.2.1), `create` (the sign-up path); `consent` and
    /// `select_account` are accepted and need nothing (Sesame asks no consent and keeps one
    /// account per browser).
    public var prompt: String?
    /// Seconds since the last proof of identity beyond which a session does not count.
    public var maxAge: String?
    /// `query` (default), `fragment`, `form_post` or `web_message`.
    public var responseMode: String?
    /// An address to fill in on the page.
    public var loginHint: String?
    /// `email`, `sms` or `passkey`: the method the page offers first.
    public var connection: String?
    /// Preferred languages of the page, space-separated (`fr-CA fr en`).
    public var uiLocales: String?
    /// Auth0's `screen_hint`: `signup` opens the page's sign-up path, as `prompt=create` does.
    public var screenHint: String?
    /// RFC 9449 §10: the thumbprint of the DPoP key the code's exchange must prove.
    public var dpopJKT: String?

    /// Creates parameters.
    public init(
        responseType: String? = nil, state: String? = nil, scope: String? = nil, nonce: String? = nil,
        audience: String? = nil, codeChallenge: String? = nil, codeChallengeMethod: String? = nil, prompt: String? = nil,
        maxAge: String? = nil, responseMode: String? = nil, loginHint: String? = nil, connection: String? = nil,
        uiLocales: String? = nil, screenHint: String? = nil
    ) {
        self.screenHint = screenHint
        self.responseType = responseType
        self.state = state
        self.scope = scope
        self.nonce = nonce
        self.audience = audience
        self.codeChallenge = codeChallenge
        self.codeChallengeMethod = codeChallengeMethod
        self.prompt = prompt
        self.maxAge = maxAge
        self.responseMode = responseMode
        self.loginHint = loginHint
        self.connection = connection
        self.uiLocales = uiLocales
    }

    /// The wire names of every parameter, for carrying them in forms and links.
    public static let names = [
        "response_type", "state", "scope", "nonce", "audience", "code_challenge", "code_challenge_method", "prompt",
        "max_age", "response_mode", "login_hint", "connection", "ui_locales", "screen_hint", "dpop_jkt",
    ]

    /// The parameters read from `value(name)`, by wire name.
    public init(_ value: (String) throws -> String?) rethrows {
        self.init(
            responseType: try value("response_type"), state: try value("state"), scope: try value("scope"),
            nonce: try value("nonce"), audience: try value("audience"), codeChallenge: try value("code_challenge"),
            codeChallengeMethod: try value("code_challenge_method"), prompt: try value("prompt"),
            maxAge: try value("max_age"), responseMode: try value("response_mode"), loginHint: try value("login_hint"),
            connection: try value("connection"), uiLocales: try value("ui_locales"),
            screenHint: try value("screen_hint"))
        dpopJKT = try value("dpop_jkt")
    }

    /// The parameters that are set, by wire name, in ``names`` order.
    public var fields: [(String, String)] {
        let values = [
            responseType, state, scope, nonce, audience, codeChallenge, codeChallengeMethod, prompt, maxAge, responseMode,
            loginHint, connection, uiLocales, screenHint, dpopJKT,
        ]
        return zip(Self.names, values).compactMap { name, value in value.map { (name, $0) } }
    }

    /// The prompt values asked for.
    public var prompts: Set<String> { Set((prompt ?? "").split(separator: " ").map(String.init)) }

    /// Whether the application asks for the sign-up path: `prompt=create` (OpenID Connect
    /// Prompt Create 1.0) or Auth0's `screen_hint=signup`.
    public var asksToSignUp: Bool { prompts.contains("create") || screenHint == "signup" }
}
