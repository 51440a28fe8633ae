import Foundation
import Hummingbird
import SesameAPI
import SesameCore
import SesameParsers

/// `POST /api/v2/users` and the fields `PATCH /api/v2/users/{id}` reads, in Auth0's terms,
/// through ``UserAdministration``.
extension ManagementController {
    /// The profile fields both a create and an update may carry.
    static let profileFields: Set<String> = [
        "name", "given_name", "family_name", "nickname", "picture", "user_metadata", "app_metadata", "blocked", "email",
        "phone_number", "email_verified", "phone_verified",
    ]

    /// What a create may carry besides the profile. `verify_email` is accepted and ignored:
    /// Sesame proves an address with the user's first code or link.
    static let createFields = profileFields.union(["connection", "user_id", "verify_email"])

    @Sendable func createUser(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try await adminTokens.authorize(bearerToken: request.bearerToken, for: .createUsers)
        let body = try await RequestParameters.parse(request, context: context, allowForm: false)
        try body.refuseUnknown(Self.createFields)
        _ = try body.bool("verify_email")
        guard let connection = try body.string("connection") else {
            throw SesameError.invalidRequest("connection is required.")
        }
        var new = NewUser(connection: connection, email: try body.string("email"), phoneNumber: try body.string("phone_number"))
        new.emailVerified = try body.bool("email_verified")
        new.phoneVerified = try body.bool("phone_verified")
        new.userID = try body.string("user_id")
        new.blocked = try body.bool("blocked")
        new.profile = try Self.profile(body)
        new.userMetadata = try body.object("user_metadata")
        new.appMetadata = try body.object("app_metadata")
        let user = try await users.create(new)
        return try Responses.json(ManagementUserBody(user), status: .created, noStore: true)
    }

    /// The names and picture of a body.
    static func profile(_ body: RequestParameters) throws -> ProfileChanges {
        ProfileChanges(
            name: try body.string("name"), givenName: try body.string("given_name"), familyName: try body.string("family_name"),
            nickname: try body.string("nickname"), picture: try body.string("picture"))
    }

    /// What a `PATCH /api/v2/users/{id}` body changes.
    static func changes(_ body: RequestParameters) throws -> UserChanges {
        try body.refuseUnknown(profileFields)
        let profile = try profile(body)
        var changes = UserChanges(
            blocked: try body.bool("blocked"), name: profile.name, picture: profile.picture,
            userMetadata: try body.object("user_metadata"), appMetadata: try body.object("app_metadata"))
        (changes.givenName, changes.familyName, changes.nickname) = (profile.givenName, profile.familyName, profile.nickname)
        (changes.email, changes.phoneNumber) = (try body.string("email"), try body.string("phone_number"))
        (changes.emailVerified, changes.phoneVerified) = (try body.bool("email_verified"), try body.bool("phone_verified"))
        return changes
    }
}
