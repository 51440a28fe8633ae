import Foundation
public import SesameAPI

/// One user of an Auth0 bulk-import file read as the ``NewUser`` it describes on the job's
/// connection, or Auth0's reasons for refusing it (`INVALID_TYPE`, `INVALID_FORMAT`,
/// `OBJECT_MISSING_REQUIRED_PROPERTY`, `OBJECT_ADDITIONAL_PROPERTIES`).
public enum ImportedUser {
    /// Why a user of the file is refused.
    public struct Refusal: Error, Equatable {
        public var reasons: [JobUserError.Reason]
    }

    /// Fields an Auth0 export or import carries that Sesame has no use for: passwords (there
    /// are none), and what the export reports but a new record sets itself.
    static let ignored: Set<String> = [
        "password_hash", "custom_password_hash", "mfa_factors", "username", "created_at", "updated_at",
        "last_login", "last_ip", "logins_count", "identities", "multifactor", "last_password_reset",
    ]
    static let strings = ["email", "phone_number", "user_id", "name", "given_name", "family_name", "nickname", "picture"]
    static let booleans = ["email_verified", "phone_verified", "blocked"]
    static let objects = ["user_metadata", "app_metadata"]

    /// The user `object` describes on `connection` (`email` or `sms`).
    public static func read(_ object: [String: JSONValue], connection: String) -> Result<NewUser, Refusal> {
        var reasons: [JobUserError.Reason] = []
        let known = Set(strings + booleans + objects).union(ignored)
        let extra = object.keys.filter { !known.contains($0) }.sorted()
        if !extra.isEmpty {
            reasons.append(
                .init(
                    code: "OBJECT_ADDITIONAL_PROPERTIES",
                    message: "Additional properties not allowed: \(extra.joined(separator: ","))"))
        }
        var text: [String: String] = [:]
        var flags: [String: Bool] = [:]
        var maps: [String: [String: JSONValue]] = [:]
        for (field, value) in object where known.contains(field) && !ignored.contains(field) {
            switch (value, field) {
            case (.null, _): break
            case (.string(let string), _) where strings.contains(field): text[field] = string
            case (.bool(let bool), _) where booleans.contains(field): flags[field] = bool
            case (.object(let map), _) where objects.contains(field): maps[field] = map
            default:
                let expected = strings.contains(field) ? "string" : booleans.contains(field) ? "boolean" : "object"
                reasons.append(
                    .init(
                        code: "INVALID_TYPE", message: "Expected type \(expected) but found type \(typeName(value))", path: field)
                )
            }
        }
        let required = connection == "sms" ? "phone_number" : "email"
        if text[required] == nil, !reasons.contains(where: { $0.path == required }) {
            reasons.append(.init(code: "OBJECT_MISSING_REQUIRED_PROPERTY", message: "Missing required property: \(required)"))
        }
        guard reasons.isEmpty else { return .failure(Refusal(reasons: reasons)) }
        var new = NewUser(connection: connection, email: text["email"], phoneNumber: text["phone_number"])
        (new.emailVerified, new.phoneVerified, new.blocked) = (flags["email_verified"], flags["phone_verified"], flags["blocked"])
        new.userID = text["user_id"]
        new.profile = ProfileChanges(
            name: text["name"], givenName: text["given_name"], familyName: text["family_name"], nickname: text["nickname"],
            picture: text["picture"])
        (new.userMetadata, new.appMetadata) = (maps["user_metadata"], maps["app_metadata"])
        return .success(new)
    }

    /// Fields of a user that are secrets: a refused user is echoed without them.
    static let secrets: Set<String> = ["password_hash", "custom_password_hash", "mfa_factors"]

    /// The refused user as `GET /api/v2/jobs/{id}/errors` shows it: as given, less its secrets,
    /// which a job keeps no longer than its file.
    static func echo(_ object: [String: JSONValue]) -> JSONValue {
        .object(object.filter { !secrets.contains($0.key) })
    }

    /// What an upsert changes on the user that exists: every field the file gives.
    static func changes(_ new: NewUser) -> UserChanges {
        var changes = UserChanges(
            blocked: new.blocked, name: new.profile.name, picture: new.profile.picture, userMetadata: new.userMetadata,
            appMetadata: new.appMetadata)
        (changes.givenName, changes.familyName, changes.nickname) = (
            new.profile.givenName, new.profile.familyName, new.profile.nickname
        )
        (changes.email, changes.phoneNumber) = (new.email, new.phoneNumber)
        (changes.emailVerified, changes.phoneVerified) = (new.emailVerified, new.phoneVerified)
        return changes
    }

    /// An `INVALID_FORMAT` reason for a refusal of the user's record, about the field its
    /// message begins with (`email is not valid.`).
    static func reason(_ error: SesameError) -> JobUserError.Reason {
        let field = String(error.message.prefix { $0 != " " })
        let known = strings + booleans + objects
        return .init(code: "INVALID_FORMAT", message: error.message, path: known.contains(field) ? field : "")
    }

    /// Auth0's `DUPLICATED_USER`: the id or the address is taken and the job does not upsert.
    static let duplicate = JobUserError.Reason(
        code: "DUPLICATED_USER", message: "The user already exist and upsert parameter is false")

    /// JSON Schema's name for the type of `value`.
    private static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
