import Foundation
import SesameAPI

/// Which web origins may use Sesame from a browser, decided in one place: CORS answers the
/// origins applications list as allowed web origins, and passkey ceremonies accept those plus
/// the issuer's own origin, `passkey_origins` and each Android app's signing-key origin.
///
/// Read from the applications as stored now (through the storage's read cache, so at most a
/// second old), so `sesame admin apps update --allowed-origin` applies to running instances.
public struct OriginPolicy: Sendable {
    let applications: any ApplicationRepository
    let settings: LoginSettings

    /// Whether a page on `origin` may call the API cross-origin (CORS).
    public func allowsCrossOrigin(_ origin: String) async throws -> Bool {
        try await applications.listApplications().contains { $0.allowedOrigins.contains(origin) }
    }

    /// The origins a passkey ceremony accepts, without duplicates.
    func passkeyOrigins() async throws -> [String] {
        var origins = [Self.origin(of: settings.issuer)].compactMap { $0 } + settings.passkeyOrigins
        for application in try await applications.listApplications() {
            origins += application.allowedOrigins
            origins += application.androidFingerprints.compactMap(Self.androidOrigin(fingerprint:))
        }
        var seen = Set<String>()
        return origins.filter { seen.insert($0).inserted }
    }

    /// `scheme://host[:port]` of a URL.
    public static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
        else { return nil }
        return components.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }

    /// The origin Android's Credential Manager reports for an app signed with this
    /// certificate: `android:apk-key-hash:` and the SHA-256 digest in base64url.
    static func androidOrigin(fingerprint: String) -> String? {
        AndroidFingerprint.bytes(fingerprint).map { "android:apk-key-hash:" + Base64URL.encode($0) }
    }
}
