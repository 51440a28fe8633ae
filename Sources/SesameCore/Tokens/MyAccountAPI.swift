import Foundation

/// Auth0's My Account API (`/me/v1/…`), built in: a login with `audience` set to
/// ``LoginSettings/myAccountAudience`` gets an RFC 9068 JWT for it, as for any API, and the
/// My Account endpoints accept it. Nothing is stored for it, like the Management API.
extension LoginSettings {
    /// `https://<issuer host>/me/`, as Auth0 names the API: the issuer's origin (scheme, host
    /// and port), whatever path the issuer has.
    public var myAccountAudience: String {
        guard let url = URLComponents(string: issuer), let scheme = url.scheme, let host = url.host else {
            return issuer + "me/"
        }
        return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")/me/"
    }

    /// Whether `audience` names the My Account API, also without its trailing slash (as
    /// Auth0.swift's examples write it).
    public func isMyAccountAudience(_ audience: String?) -> Bool {
        // Most grants name no audience (every refresh, say): no issuer parsing for them.
        guard let audience else { return false }
        return Self.names(myAccount: myAccountAudience, audience)
    }

    /// Whether `audience` is `myAccount`, with or without its trailing slash.
    static func names(myAccount: String, _ audience: String) -> Bool {
        audience == myAccount || audience + "/" == myAccount
    }
}

/// The scopes of the My Account API that Sesame serves.
enum MyAccountScopes {
    static let all: Set<String> = [
        MyAccountPasskeys.createScope, PasskeyManagement.Scopes.read, PasskeyManagement.Scopes.update,
        PasskeyManagement.Scopes.delete,
    ]
}

extension ResourceServer {
    /// The built-in My Account API: every scope asked for, refresh tokens, the JWT lifetime.
    static func myAccount(settings: LoginSettings) -> ResourceServer {
        var api = ResourceServer.configured(settings.myAccountAudience, settings: settings)
        api.name = "My Account API"
        return api
    }
}
