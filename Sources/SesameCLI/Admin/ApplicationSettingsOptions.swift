import ArgumentParser
import Foundation
import SesameCore

/// The list settings `apps create` and `apps update` share. On update, a given list
/// replaces the stored one; an absent one leaves it alone.
struct ApplicationSettingsOptions: ParsableArguments {
    @Option(name: .customLong("callback"), help: "Allowed callback URL (repeatable).") var callbacks: [String] = []
    @Option(name: .customLong("allowed-origin"), help: "Allowed web origin (repeatable).") var origins: [String] = []
    @Option(name: .customLong("logout-url"), help: "Allowed logout return URL (repeatable).") var logoutURLs: [String] = []
    @Option(
        name: .customLong("grant"),
        help: "Enabled grant type (repeatable; default: every login grant, client_credentials for non_interactive).")
    var grants: [String] = []
    @Option(name: .customLong("ios-bundle-id"), help: "iOS bundle id for link_ios (repeatable).") var iosBundleIDs: [String] = []
    @Option(name: .customLong("android-package"), help: "Android package for link_android (repeatable).")
    var androidPackages: [String] = []
    @Option(name: .customLong("ios-team-id"), help: "Apple team ID of the iOS apps (apple-app-site-association).")
    var iosTeamID: String?
    @Option(
        name: .customLong("android-fingerprint"),
        help: "SHA-256 fingerprint (AA:BB:…) of an Android app's signing certificate (repeatable).")
    var androidFingerprints: [String] = []
    @Flag(inversion: .prefixedNo, help: "Device-key logins must carry a nonce from POST /device-key/challenge.")
    var deviceKeyNonceRequired: Bool?
    @Option(name: .customLong("logo-url"), help: "https URL of the logo the login page shows (\"\" removes it).")
    var logoURL: String?
    @Option(name: .customLong("brand-color"), help: "The login page's button colour, #rrggbb (\"\" removes it).")
    var brandColor: String?
    @Option(
        name: .customLong("backchannel-logout-uri"),
        help: "Where logout tokens are POSTed when a session of the app ends (\"\" removes it).")
    var backchannelLogoutURI: String?
    @Option(
        name: .customLong("frontchannel-logout-uri"),
        help: "The page the logout page frames when a session of the app ends (\"\" removes it).")
    var frontchannelLogoutURI: String?

    func validate() throws {
        try Self.validateURLs(callbacks + origins + logoutURLs)
        let unknown = grants.filter { !GrantType.known.contains($0) }
        guard unknown.isEmpty else {
            throw ValidationError(
                "unknown grant \(unknown.joined(separator: ", ")); known: \(GrantType.known.joined(separator: ", "))")
        }
        if let bad = androidFingerprints.first(where: { AndroidFingerprint.normalized($0) == nil }) {
            throw ValidationError("'\(bad)' is not a SHA-256 fingerprint: 32 hex pairs separated by colons")
        }
        if let logoURL, !logoURL.isEmpty, URLComponents(string: logoURL).map({ $0.scheme == "https" && $0.host != nil }) != true {
            throw ValidationError("--logo-url must be an https URL")
        }
        for uri in [backchannelLogoutURI, frontchannelLogoutURI].compactMap({ $0 }) where !uri.isEmpty {
            if let problem = CallbackURL.problem(uri, type: .regular) { throw ValidationError(problem) }
        }
        if let brandColor, !brandColor.isEmpty, BrandColor(hex: brandColor) == nil {
            throw ValidationError("--brand-color must be a colour like #2453d3")
        }
    }

    static func validateURLs(_ urls: [String]) throws {
        for url in urls {
            guard let components = URLComponents(string: url), let scheme = components.scheme, !scheme.isEmpty,
                components.host != nil || !["http", "https"].contains(scheme)
            else { throw ValidationError("'\(url)' is not an absolute URL") }
        }
    }

    /// Refuses callbacks an application of `type` may not have (``CallbackURL``).
    static func validateCallbacks(_ urls: [String], type: ApplicationType) throws {
        if let problem = urls.lazy.compactMap({ CallbackURL.problem($0, type: type) }).first {
            throw ValidationError(problem)
        }
    }

    func apply(to app: inout Application, replace: Bool) throws {
        try Self.validateCallbacks(callbacks, type: app.type)
        if replace || !callbacks.isEmpty { app.callbacks = callbacks }
        if replace || !origins.isEmpty { app.allowedOrigins = origins }
        if replace || !logoutURLs.isEmpty { app.logoutURLs = logoutURLs }
        if !grants.isEmpty { app.grantTypes = grants }
        if replace || !iosBundleIDs.isEmpty { app.iosBundleIDs = iosBundleIDs }
        if replace || !androidPackages.isEmpty { app.androidPackages = androidPackages }
        if replace || iosTeamID != nil { app.iosTeamID = iosTeamID }
        if replace || !androidFingerprints.isEmpty {
            app.androidFingerprints = androidFingerprints.compactMap(AndroidFingerprint.normalized)
        }
        if let deviceKeyNonceRequired { app.deviceKeyNonceRequired = deviceKeyNonceRequired }
        if let logoURL { app.logoURL = logoURL.isEmpty ? nil : logoURL }
        if let uri = backchannelLogoutURI { app.backchannelLogoutURI = uri.isEmpty ? nil : uri }
        if let uri = frontchannelLogoutURI { app.frontchannelLogoutURI = uri.isEmpty ? nil : uri }
        if let brandColor {
            app.brandColor = BrandColor(hex: brandColor)
            // The colour is kept either way: the page falls back to its own accent where it fails.
            for warning in app.brandColor?.report.warnings ?? [] { printError("note: \(warning)") }
        }
    }
}
