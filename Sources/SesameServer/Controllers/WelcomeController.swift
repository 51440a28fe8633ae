import Crypto
import Foundation
import Hummingbird
import SesameAPI
import SesameCore

/// A built-in application page on the issuer, so a fresh install's first browser try ends
/// somewhere readable: `/welcome` starts a code + PKCE login of the default application and,
/// back from the hosted page, shows who signed in and the id_token's claims.
struct WelcomeController {
    let settings: LoginSettings
    let applications: Registry
    let tokens: TokenService
    let pages: HostedPages
    var random: any RandomSource = SystemRandomSource()

    /// Holds `state.verifier` between the start and the callback, for this page only.
    static let cookieName = "sesame_welcome"
    /// Its name on an https issuer: the browser then insists on Secure, Path=/ and no Domain,
    /// so neither a plain-http page nor a sibling subdomain can read or plant it.
    static let hostCookieName = "__Host-" + cookieName

    private var secure: Bool { settings.issuer.hasPrefix("https://") }

    /// The state cookie: `__Host-sesame_welcome` on an https issuer, else `sesame_welcome`, sent
    /// back to `/welcome` only.
    func cookie(_ value: String, maxAge: Int) -> Cookie {
        guard secure else {
            return Cookie(name: Self.cookieName, value: value, maxAge: maxAge, path: "/welcome", httpOnly: true, sameSite: .lax)
        }
        return Cookie(
            name: Self.hostCookieName, value: value, maxAge: maxAge, path: "/", secure: true, httpOnly: true, sameSite: .lax)
    }

    /// The state the browser holds. A sign-in started before the `__Host-` name (an upgrade in
    /// its 15 minutes) still carries the old name, which is read too for that while.
    func savedState(_ request: Request) -> String? {
        request.cookies[Self.hostCookieName]?.value ?? request.cookies[Self.cookieName]?.value
    }

    func register(on router: Router<SesameRequestContext>) {
        router.get("/welcome", use: show)
        router.get("/welcome/start", use: start)
    }

    private var callback: String { settings.issuer + "welcome" }

    @Sendable func start(_ request: Request, context: SesameRequestContext) async throws -> Response {
        guard let application = try await defaultApplication() else { return notSetUp(pages.view(request, application: nil)) }
        let state = random.token(16)
        let verifier = random.token(32)
        let challenge = Base64URL.encode(SHA256.hash(data: Data(verifier.utf8)))
        var components = URLComponents(string: settings.issuer + "authorize")!
        components.queryItems = [
            URLQueryItem(name: "client_id", value: application.clientID), URLQueryItem(name: "redirect_uri", value: callback),
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "scope", value: "openid profile email phone"),
            URLQueryItem(name: "state", value: state), URLQueryItem(name: "code_challenge", value: challenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ]
        var response = Responses.redirect(components.string!)
        response.setCookie(cookie("\(state).\(verifier)", maxAge: 900))
        return response
    }

    @Sendable func show(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let view = pages.view(request, application: nil)
        if let error = query.get("error") {
            // The alert takes finished HTML: what the server said, quoted.
            let said = "\(error): \(query.get("error_description") ?? "")"
            return page(view, error: HTMLText.escaped(said), status: .badRequest)
        }
        guard let code = query.get("code") else { return page(view) }
        guard let application = try await defaultApplication() else { return notSetUp(view) }
        let saved = savedState(request)?.split(separator: ".", maxSplits: 1)
        guard let saved, saved.count == 2, String(saved[0]) == query.get("state") else {
            return page(view, error: view.text("welcome_not_started"), status: .badRequest)
        }
        do {
            let answer = try await tokens.exchange(
                code: code, redirectURI: callback, codeVerifier: String(saved[1]), application: application)
            let claims = answer.idToken.flatMap(Self.claims(of:)) ?? [:]
            let logout = settings.issuer + "v2/logout?client_id=\(application.clientID)&returnTo=" + callback
            var response = page(view, claims: claims, logoutURL: logout)
            response.setCookie(cookie("", maxAge: 0))
            if secure, request.cookies[Self.cookieName] != nil {
                // The old name's cookie, from before the upgrade, is removed as well.
                response.setCookie(
                    Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/welcome", httpOnly: true, sameSite: .lax))
            }
            return response
        } catch let error as SesameError {
            return page(view, error: HTMLText.escaped(error.message), status: .badRequest)
        }
    }

    /// The page: the start button, or who signed in and the id_token's claims, or what went wrong.
    private func page(
        _ view: PageView, claims: [String: String]? = nil, logoutURL: String? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var values: [String: Any] = ["title": view.text("welcome_heading")]
        if let claims {
            let who = claims["email"] ?? claims["phone_number"] ?? claims["sub"] ?? "someone"
            values["who"] = who.trimmingCharacters(in: ["\""])
            values["claims"] = claims.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] }
            values["logoutURL"] = logoutURL
        }
        return view.render("welcome", values: values, error: error, status: status)
    }

    private func defaultApplication() async throws -> SesameCore.Application? {
        try await applications.applications().first { $0.isDefault && $0.allowsCallback(callback) }
    }

    private func notSetUp(_ view: PageView) -> Response {
        page(
            view,
            error: view.text(
                "welcome_no_callback",
                [
                    "callback": callback,
                    "command": "sesame admin apps update CLIENT_ID --callback \(callback) --logout-url \(callback)",
                ]),
            status: .notFound)
    }

    /// The payload of a JWT this server just issued, as text.
    static func claims(of jwt: String) -> [String: String]? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let bytes = Base64URL.decodeTolerant(String(parts[1])),
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        else { return nil }
        return object.mapValues { value in
            (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes]))
                .map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
        }
    }
}
