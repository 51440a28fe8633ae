import Crypto
import Foundation

extension ResourceServerAdministration {
    /// The Management API as Auth0 lists it among a tenant's APIs: a system API named by the
    /// management audience, with the scopes management tokens carry. It is never stored, so
    /// nothing can change it; its id is derived from the audience, so every instance (and
    /// every restart) answers the same fixed id, as Auth0 does per tenant.
    public var systemAPI: ResourceServer {
        let digest = SHA256.hash(data: Data(managementAudience.utf8))
        var api = ResourceServer(
            id: Hex.encode(digest.prefix(12)), identifier: managementAudience, name: "Auth0 Management API",
            createdAt: Date(timeIntervalSince1970: 0))
        api.scopes = ManagementScope.allCases.map { ResourceServerScope(value: $0.rawValue, description: $0.summary) }
        return api
    }

    /// Whether `api` is the system API (``systemAPI``), which answers `is_system: true`.
    public func isSystem(_ api: ResourceServer) -> Bool { api.identifier == managementAudience }

    /// The system API when `id` is its id or identifier.
    func system(_ id: String) -> ResourceServer? {
        let system = systemAPI
        return id == system.id || id == system.identifier ? system : nil
    }

    /// Refuses to change or delete the system API, as Auth0 does.
    /// - Throws: 403 when `id` names it.
    func refuseSystem(_ id: String, _ action: String) throws {
        guard system(id) != nil else { return }
        throw SesameError(
            .forbidden, "operation_not_supported", "The Management API is a system API and cannot be \(action).")
    }
}

extension ManagementScope {
    /// Auth0's description of the scope: `read:client_keys` is "Read Client Keys".
    var summary: String {
        rawValue.split(whereSeparator: { $0 == ":" || $0 == "_" }).map(\.capitalized).joined(separator: " ")
    }
}
