import SesameCore

/// Auth0's legacy endpoints (`/oauth/ro`, `/passwordless/verify`) answer a wrong code with
/// 401 `invalid_user_password` instead of 403 `invalid_grant`, and name missing parameters
/// in their own words (`missing username parameter`); Lock v1 matches these.
enum LegacyErrors {
    static func translate<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SesameError where error.refusal == .wrongCredential {
            throw SesameError(.unauthorized, "invalid_user_password", error.message, logDetail: error.logDetail)
        }
    }

    /// Checks the parameters every legacy passwordless call needs, in Auth0's order.
    static func require(clientID: String?, connection: String?, username: String?, password: String?) throws {
        let missing: [(String, String?)] = [
            ("client_id", clientID), ("username", username), ("password", password), ("connection", connection),
        ]
        if let name = missing.first(where: { $0.1 == nil })?.0 {
            throw SesameError.invalidRequest("missing \(name) parameter")
        }
    }
}
