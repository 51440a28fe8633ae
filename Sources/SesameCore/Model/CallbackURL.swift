import Foundation

/// Which callback URLs an application may register: where codes and tokens are sent.
///
/// `https` anywhere; `http` only on loopback (a native app's local listener, RFC 8252 §7.3,
/// or development); a private-use scheme (`com.example.app:/callback`, RFC 8252 §7.1) only
/// for native applications. Schemes that run or embed content in the browser
/// (`javascript:`, `data:`, …) never, and no fragment (RFC 6749 §3.1.2).
public enum CallbackURL {
    /// Schemes a browser executes or renders itself: a redirect there runs the attacker's page.
    static let forbiddenSchemes: Set<String> = ["javascript", "data", "vbscript", "file", "blob", "about", "filesystem"]

    /// Why `url` may not be a callback of an application of `type`; nil when it may.
    public static func problem(_ url: String, type: ApplicationType) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), !scheme.isEmpty
        else { return "'\(url)' is not an absolute URL" }
        if components.fragment != nil { return "'\(url)' has a fragment (#…), which a callback may not have" }
        switch scheme {
        case "https":
            return components.host?.isEmpty == false ? nil : "'\(url)' has no host"
        case "http":
            return isLoopback(components.host) ? nil : "'\(url)' uses http on a host other than loopback: use https"
        case _ where forbiddenSchemes.contains(scheme):
            return "'\(url)' uses the \(scheme): scheme, which is never a callback"
        default:
            return type == .native ? nil : "'\(url)' uses a custom scheme, which only native applications may use"
        }
    }

    /// Whether `host` is this machine: `localhost` exactly, or an address in 127.0.0.0/8 or
    /// `::1`. The host is parsed as an address, not matched by prefix: `127.evil.example` is a
    /// name anyone can register, and an http callback there sends codes in clear to them.
    private static func isLoopback(_ host: String?) -> Bool {
        guard var host = host?.lowercased() else { return false }
        if host == "localhost" { return true }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let address = IPAddress(host) else { return false }
        return loopback.contains { $0.contains(address) }
    }

    private static let loopback = ["127.0.0.0/8", "::1/128"].compactMap { IPRange($0) }
}

extension Application {
    /// Whether `url` is one of the application's callbacks and a safe one: a row written
    /// before the rules existed must not redirect codes to `javascript:`.
    public func allowsCallback(_ url: String) -> Bool {
        callbacks.contains(url) && CallbackURL.problem(url, type: type) == nil
    }

    /// Whether `url` is one of the application's logout URLs and a safe one (the callback
    /// rules), so a row stored before logout URLs were checked never sends a browser to
    /// `javascript:`.
    public func allowsLogoutURL(_ url: String) -> Bool {
        logoutURLs.contains(url) && CallbackURL.problem(url, type: type) == nil
    }
}
