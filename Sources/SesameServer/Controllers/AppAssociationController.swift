import Hummingbird
import SesameCore

/// The files iOS and Android fetch to trust an app with this domain's passkeys and links,
/// built from each application's iOS team and bundle IDs and Android package and signing
/// certificate fingerprints.
struct AppAssociationController {
    let applications: Registry

    func register(on router: Router<SesameRequestContext>) {
        router.get("/.well-known/apple-app-site-association", use: apple)
        router.get("/.well-known/assetlinks.json", use: android)
    }

    @Sendable func apple(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let appIDs = try await applications.applications().flatMap { application -> [String] in
            guard let team = application.iosTeamID else { return [] }
            return application.iosBundleIDs.map { "\(team).\($0)" }
        }
        let document = AppleAppSiteAssociation(
            webcredentials: .init(apps: appIDs),
            applinks: .init(details: appIDs.isEmpty ? [] : [.init(appIDs: appIDs, components: [["/": "/ios/*"]])]))
        return try Responses.json(document)
    }

    @Sendable func android(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let statements = try await applications.applications().flatMap { application in
            application.androidPackages.map { package in
                AssetLinkStatement(
                    relation: ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"],
                    target: .init(
                        namespace: "android_app", packageName: package, sha256CertFingerprints: application.androidFingerprints))
            }
        }
        return try Responses.json(statements)
    }
}

/// `apple-app-site-association`: `webcredentials` for passkeys, `applinks` for `/ios/…` links.
struct AppleAppSiteAssociation: Encodable {
    struct WebCredentials: Encodable { let apps: [String] }
    struct AppLinks: Encodable { let details: [Detail] }
    struct Detail: Encodable {
        let appIDs: [String]
        let components: [[String: String]]
    }
    let webcredentials: WebCredentials
    let applinks: AppLinks
}

/// One Digital Asset Links statement.
struct AssetLinkStatement: Encodable {
    struct Target: Encodable {
        let namespace: String
        let packageName: String
        let sha256CertFingerprints: [String]

        enum CodingKeys: String, CodingKey {
            case namespace, packageName = "package_name", sha256CertFingerprints = "sha256_cert_fingerprints"
        }
    }
    let relation: [String]
    let target: Target
}
