public import Foundation
import SesameAPI

/// The kind of an application, which decides whether it can keep a secret.
public enum ApplicationType: String, Sendable, Codable, CaseIterable {
    /// A mobile or desktop app: public, authenticates with `client_id` alone.
    case native
    /// A single-page web app: public.
    case spa
    /// A server-side web app: confidential, must send its `client_secret`.
    case regular
    /// A machine-to-machine client (Auth0's `non_interactive`): a back end that signs nobody
    /// in and gets Management API tokens with `client_credentials`; confidential.
    case nonInteractive = "non_interactive"
}

/// How an application proves itself at the token endpoint (Auth0's
/// `token_endpoint_auth_method`).
public enum TokenEndpointAuthMethod: String, Sendable, Codable, CaseIterable {
    /// A public client: its `client_id` alone.
    case none
    /// `client_secret` in the body.
    case clientSecretPost = "client_secret_post"
    /// `client_secret` in an `Authorization: Basic` header.
    case clientSecretBasic = "client_secret_basic"
}

/// An OAuth client ("application" in Auth0's words).
public struct Application: Sendable, Codable, Equatable {
    public var clientID: String
    /// Present only for confidential (`regular`) applications.
    public var clientSecret: String?
    public var name: String
    public var type: ApplicationType
    /// Allowed redirect targets for magic links and authorization codes, matched exactly.
    public var callbacks: [String]
    /// Web origins allowed to call the API from a browser.
    public var allowedOrigins: [String]
    /// Grant types this application may use (full grant-type URIs or short names).
    public var grantTypes: [String]
    /// True for the application made on first start.
    public var isDefault: Bool
    /// iOS bundle identifiers of the application's native apps (for `link_ios` magic links).
    public var iosBundleIDs: [String]
    /// Android package names of the application's native apps (for `link_android`).
    public var androidPackages: [String]
    /// The Apple developer team of the iOS apps, for `apple-app-site-association`.
    public var iosTeamID: String?
    /// SHA-256 fingerprints of the Android apps' signing certificates (`AA:BB:…`), for
    /// `assetlinks.json` and the `android:apk-key-hash:` passkey origins.
    public var androidFingerprints: [String]
    public var createdAt: Date
    /// Device-key logins must carry a one-use nonce from `POST /device-key/challenge`.
    public var deviceKeyNonceRequired = false
    /// Where logout may send the browser (`returnTo`, `post_logout_redirect_uri`), matched exactly.
    public var logoutURLs: [String] = []
    /// The logo the hosted pages show above the form (an https URL).
    public var logoURL: String?
    /// The colour of the hosted pages' main button; links use it where it has enough contrast.
    public var brandColor: BrandColor?
    /// How the application must authenticate, when an operator set it; nil: as its type
    /// decides (a secret, in the body or a Basic header, for regular and machine clients).
    public var authMethod: TokenEndpointAuthMethod?
    /// Where Sesame POSTs a logout token when a browser session the application used ends
    /// (OpenID Connect Back-Channel Logout 1.0); only an operator sets it.
    public var backchannelLogoutURI: String?
    /// The page the logout page loads in a hidden frame when a session the application used
    /// ends (OpenID Connect Front-Channel Logout 1.0), with `iss` and `sid`.
    public var frontchannelLogoutURI: String?

    /// Creates an application record.
    public init(
        clientID: String, clientSecret: String?, name: String, type: ApplicationType, callbacks: [String] = [],
        allowedOrigins: [String] = [], grantTypes: [String] = GrantType.defaults, isDefault: Bool = false,
        iosBundleIDs: [String] = [], androidPackages: [String] = [], iosTeamID: String? = nil,
        androidFingerprints: [String] = [], createdAt: Date
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.name = name
        self.type = type
        self.callbacks = callbacks
        self.allowedOrigins = allowedOrigins
        self.grantTypes = grantTypes
        self.isDefault = isDefault
        self.iosBundleIDs = iosBundleIDs
        self.androidPackages = androidPackages
        self.iosTeamID = iosTeamID
        self.androidFingerprints = androidFingerprints
        self.createdAt = createdAt
    }

    /// Whether the application must authenticate with its secret.
    public var isConfidential: Bool { authMethod.map { $0 != .none } ?? Self.isConfidential(type) }

    /// Whether applications of `type` keep a secret unless told otherwise.
    public static func isConfidential(_ type: ApplicationType) -> Bool { type == .regular || type == .nonInteractive }

    /// The method Auth0 reports for the application: the one set, or its type's.
    public var effectiveAuthMethod: TokenEndpointAuthMethod { authMethod ?? (isConfidential ? .clientSecretPost : .none) }

    /// Whether `grant` is enabled for this application.
    public func allows(_ grant: String) -> Bool { grantTypes.contains(grant) }
}

/// The grant types Sesame implements, by their wire names.
public enum GrantType {
    public static let passwordlessOTP = "http://auth0.com/oauth/grant-type/passwordless/otp"
    public static let refreshToken = "refresh_token"
    public static let authorizationCode = "authorization_code"
    /// Auth0's legacy resource-owner endpoint `/oauth/ro` with `grant_type=password`.
    public static let legacyPassword = "password"
    /// Auth0's native passkey grant: finishes a `/passkey/register` or `/passkey/challenge`.
    public static let webauthn = "urn:okta:params:oauth:grant-type:webauthn"
    /// Device-key login (RFC 7523 JWT bearer), on `/oauth/token` and the legacy `/oauth/ro`.
    public static let jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// A magic link confirmed on another device, redeemed by the party that asked for it. Not a
    /// grant of its own in an application's settings: applications that allow
    /// ``passwordlessOTP`` may use it.
    public static let magicLink = LinkSessionBody.grantType
    /// OAuth's client-credentials grant: a machine client's own token (Management API tokens).
    public static let clientCredentials = "client_credentials"
    /// Every grant a new application gets.
    public static let defaults = [passwordlessOTP, refreshToken, authorizationCode, legacyPassword, webauthn, jwtBearer]
    /// Every grant a new machine-to-machine application gets.
    public static let machineDefaults = [clientCredentials]
    /// Every grant an application may list.
    public static let known = defaults + [clientCredentials]
}
