import Foundation
import Hummingbird
public import SesameAPI
public import SesameCore
import SesameParsers

/// Device credentials in Auth0's Management API shape, and the device-key nonce challenge.
///
/// - `POST /api/v2/device-credentials` `{device_name, type: "public_key", value, device_id, client_id?, user_id?}` → 201
/// - `GET /api/v2/device-credentials?user_id=&client_id=&type=&page=&per_page=&include_totals=` → array (or page)
/// - `DELETE /api/v2/device-credentials/{id}` → 204
/// - `POST /device-key/challenge` `{client_id}` → `{nonce, expires_in}`
///
/// The `/api/v2` routes take `Authorization: Bearer` with the user's own access token (their
/// own credentials only) or a management token from `sesame admin tokens create`.
struct DeviceKeyController {
    let deviceKeys: DeviceKeys
    let clients: ClientAuthenticator
    let proxies: ProxyPolicy

    func register(on router: Router<SesameRequestContext>) {
        router.post("/api/v2/device-credentials", use: create)
        router.get("/api/v2/device-credentials", use: list)
        router.delete("/api/v2/device-credentials/:id", use: delete)
        router.post("/device-key/challenge", use: challenge)
    }

    private var service: DeviceCredentialService { deviceKeys.credentials }

    @Sendable func create(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let caller = try await service.caller(request.presentedAccessToken, for: .create)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        let registration = DeviceCredentialRegistration(
            deviceName: try body.string("device_name"), type: try body.string("type"), value: try Self.keyValue(body),
            deviceID: try body.string("device_id"), clientID: try body.string("client_id"), userID: try body.string("user_id"))
        let credential = try await service.register(registration, by: caller)
        return try Responses.json(DeviceCredentialBody(credential), status: .created)
    }

    @Sendable func list(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let caller = try await service.caller(request.presentedAccessToken, for: .read)
        let query = try ListQuery(request.uri.queryParameters)
        var credentials = try await service.list(userID: query.userID, clientID: query.clientID, by: caller)
        // Only public keys are device credentials here; Auth0's refresh-token kinds are empty lists.
        if let type = query.type, type != "public_key" { credentials = [] }
        let page = credentials.dropFirst(query.page * query.perPage).prefix(query.perPage).map(DeviceCredentialBody.init)
        guard query.includeTotals else { return try Responses.json(Array(page)) }
        return try Responses.json(
            DeviceCredentialPageBody(
                start: query.page * query.perPage, limit: query.perPage, total: credentials.count,
                deviceCredentials: Array(page)))
    }

    @Sendable func delete(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let caller = try await service.caller(request.presentedAccessToken, for: .delete)
        try await service.delete(id: context.parameters.get("id") ?? "", by: caller)
        return Response(status: .noContent)
    }

    @Sendable func challenge(_ request: Request, context: SesameRequestContext) async throws -> Response {
        let body = try await RequestParameters.parse(request, context: context, allowForm: true)
        let application = try await clients.authenticate(request, body)
        let challenge = try await deviceKeys.login.challenge(
            application: application, ip: context.clientIP(request, proxies: proxies))
        return try Responses.json(DeviceKeyChallengeBody(nonce: challenge.nonce, expiresIn: challenge.expiresIn), noStore: true)
    }

    /// `value`: PEM (or base64) text, or a JWK object.
    static func keyValue(_ body: RequestParameters) throws -> DeviceCredentialRegistration.Value? {
        let invalid = SesameError.invalidRequest("value must be PEM text or a JWK object.")
        if let text = try? body.string("value") { return .text(text) }
        return try body.stringMembers("value", error: invalid).map { .jwk($0) }
    }
}

/// The list query, Auth0's parameters: `page` is 0-based, `per_page` at most 1000.
private struct ListQuery {
    var userID: String?
    var clientID: String?
    var type: String?
    var page = 0
    var perPage = 50
    var includeTotals = false

    init(_ query: Hummingbird.Parameters) throws {
        func text(_ name: String) -> String? { query.get(name).flatMap { $0.isEmpty ? nil : $0 } }
        (userID, clientID, type) = (text("user_id"), text("client_id"), text("type"))
        if let page = text("page") {
            guard let number = Int(page), number >= 0, number <= 1_000_000 else {
                throw SesameError.invalidRequest("page must be a whole number from 0.")
            }
            self.page = number
        }
        if let perPage = text("per_page") {
            guard let number = Int(perPage), (1...1000).contains(number) else {
                throw SesameError.invalidRequest("per_page must be a whole number from 1 to 1000.")
            }
            self.perPage = number
        }
        includeTotals = text("include_totals") == "true"
    }
}

extension DeviceCredentialBody {
    /// The wire form of a stored credential.
    public init(_ credential: DeviceCredential) {
        self.init(
            id: credential.id, deviceName: credential.deviceName, deviceID: credential.deviceID, userID: credential.userID,
            clientID: credential.clientID, alg: credential.algorithm.rawValue, fingerprint: credential.fingerprint,
            createdAt: ISO8601.string(credential.createdAt))
    }
}
