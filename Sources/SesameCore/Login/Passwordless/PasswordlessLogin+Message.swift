import Foundation

extension PasswordlessLogin {
    /// What the message for `mode` must say: a code, a web magic link, or a native-app link.
    func content(
        secret: String, mode: SendMode, recipient: String, connection: Connection, application: Application,
        request: PasswordlessStartRequest, lifetime: Int
    ) throws -> MessageContent {
        let link: String?
        switch mode {
        case .code: link = nil
        case .link: link = webLink(secret, recipient, connection, application, request.authParams, request.linkRequestID)
        case .linkIOS, .linkAndroid: link = try nativeLink(secret, mode, connection, application)
        }
        return MessageContent(
            channel: connection.strategy == .email ? .email : .sms, recipient: recipient, kind: link == nil ? .code : .link,
            code: link == nil ? secret : nil, link: link, clientID: application.clientID,
            applicationName: application.name, applicationLogoURL: application.logoURL,
            applicationBrandColor: application.brandColor?.hex, connection: connection.name,
            lifetimeMinutes: max(1, lifetime / 60), requestLanguage: request.requestLanguage,
            acceptLanguage: request.acceptLanguage)
    }

    /// `/passwordless/verify_redirect?…` in the shape auth0.js builds, so its hosted page and
    /// our links land on the same endpoint.
    private func webLink(
        _ secret: String, _ recipient: String, _ connection: Connection, _ application: Application,
        _ authParams: [String: String], _ linkRequestID: String?
    ) -> String {
        var components = URLComponents(string: settings.baseURL + "/passwordless/verify_redirect")!
        var items = [
            URLQueryItem(name: "client_id", value: application.clientID),
            URLQueryItem(name: "connection", value: connection.name),
            URLQueryItem(name: connection.strategy == .email ? "email" : "phone_number", value: recipient),
            URLQueryItem(name: "verification_code", value: secret),
        ]
        for key in Self.linkParameters where authParams[key] != nil {
            items.append(URLQueryItem(name: key, value: authParams[key]))
        }
        if let linkRequestID { items.append(URLQueryItem(name: "request", value: linkRequestID)) }
        components.queryItems = items
        // URLComponents leaves "+" alone, but form decoding reads it as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string!
    }

    /// Universal / app link `https://HOST/ios/BUNDLE/email?code=…` that Lock v1 exchanges
    /// like a one-time code.
    private func nativeLink(
        _ secret: String, _ mode: SendMode, _ connection: Connection, _ application: Application
    ) throws -> String {
        let platform = mode == .linkIOS ? "ios" : "android"
        let ids = mode == .linkIOS ? application.iosBundleIDs : application.androidPackages
        guard let appID = ids.first else {
            throw startError(
                .send,
                "send=\(mode.rawValue) needs the application's \(platform == "ios" ? "iOS bundle id" : "Android package")")
        }
        return "\(settings.baseURL)/\(platform)/\(appID)/\(connection.name)?code=\(secret)"
    }

    /// The authorize parameters a web link carries (Auth0's `authParams`).
    static let linkParameters = [
        "redirect_uri", "response_type", "state", "scope", "nonce", "audience", "code_challenge",
        "code_challenge_method", "response_mode", "ui_locales",
    ]
}
