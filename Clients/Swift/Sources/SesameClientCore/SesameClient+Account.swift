public import Foundation
import SesameAPI

/// A sign-in link opened by the app: the web link (`/passwordless/verify_redirect?…`) or the
/// universal / app link (`/ios/BUNDLE/email?code=…`, `/android/PACKAGE/sms?code=…`).
public struct MagicLink: Sendable, Equatable {
    /// `email` or `sms`.
    public var connection: String
    /// The secret the link carries; it signs in like a code.
    public var code: String
    /// The address, when the link names it (web links do; app links do not: the app knows it).
    public var identifier: String?

    /// Creates a link's contents.
    public init(connection: String, code: String, identifier: String?) {
        self.connection = connection
        self.code = code
        self.identifier = identifier
    }
}

extension SesameClient {
    /// The sign-in link in `url`, or nil when `url` is not one of this server's links.
    public func magicLink(from url: URL) -> MagicLink? {
        guard url.host == domain.host, url.port == domain.port,
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return nil }
        let query = Dictionary(
            (components.queryItems ?? []).compactMap { item in item.value.map { (item.name, $0) } },
            uniquingKeysWith: { a, _ in a })
        let path = components.path.split(separator: "/").map(String.init)
        if path.last == "verify_redirect", let code = query["verification_code"], let connection = query["connection"] {
            return MagicLink(connection: connection, code: code, identifier: query["email"] ?? query["phone_number"])
        }
        if path.count == 3, ["ios", "android"].contains(path[0]), let code = query["code"] {
            return MagicLink(connection: path[2], code: code, identifier: nil)
        }
        return nil
    }

    /// Signs in with a link's secret; `identifier` is the address the person entered (needed
    /// for app links, which do not carry it).
    public func login(with link: MagicLink, identifier: String? = nil, scope: String = defaultScope) async throws
        -> Credentials
    {
        guard let address = link.identifier ?? identifier else {
            throw SesameClientError.invalidResponse("the link does not name the address: pass the one the person entered")
        }
        return link.connection == "sms"
            ? try await login(phoneNumber: address, code: link.code, scope: scope)
            : try await login(email: address, code: link.code, scope: scope)
    }

    /// The signed-in person's passkeys (needs `read:me:authentication_methods`).
    public func passkeys(accessToken: String) async throws -> [PasskeyInfo] {
        try transport.decode([PasskeyInfo].self, try await transport.get("/me/passkeys", bearer: accessToken))
    }

    /// Renames one of the person's passkeys (needs `update:me:authentication_methods` and a
    /// recent login).
    @discardableResult
    public func renamePasskey(_ id: String, to name: String, accessToken: String) async throws -> PasskeyInfo {
        try transport.decode(
            PasskeyInfo.self,
            try await transport.send(method: "PATCH", "/me/passkeys/\(id)", ["name": name], bearer: accessToken))
    }

    /// Deletes one of the person's passkeys (needs `delete:me:authentication_methods` and a
    /// recent login); it can never sign in again.
    public func deletePasskey(_ id: String, accessToken: String) async throws {
        _ = try await transport.send(method: "DELETE", "/me/passkeys/\(id)", nil, bearer: accessToken)
    }
}

/// A passkey as its owner sees it in `/me/passkeys`.
public struct PasskeyInfo: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var createdAt: String
    public var lastUsedAt: String?
    /// `single_device` or `multi_device` (synced).
    public var credentialDeviceType: String
    public var credentialBackedUp: Bool
    public var disabled: Bool

    enum CodingKeys: String, CodingKey {
        case id, name, createdAt = "created_at", lastUsedAt = "last_used_at"
        case credentialDeviceType = "credential_device_type", credentialBackedUp = "credential_backed_up", disabled
    }
}
