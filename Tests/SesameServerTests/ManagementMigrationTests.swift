import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import Testing

/// What a team moving from Auth0 needs of the Management API: Auth0's error shape, users
/// created with their Auth0 ids, machine-to-machine tokens and the lists Auth0's SDKs parse.
@Suite("Management API: moving from Auth0")
struct ManagementMigrationTests {
    static func object(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any])
    }

    @Test("errors under /api/v2/ answer Auth0's {statusCode, error, message, errorCode}; the Authentication API keeps its shape")
    func managementErrorShape() async throws {
        try await Harness.run { h in
            let unauthorized = try Self.object(try await h.get("/api/v2/users"))
            #expect(unauthorized["statusCode"] as? Int == 401 && unauthorized["error"] as? String == "Unauthorized")
            #expect(unauthorized["errorCode"] as? String == "invalid_token")
            let message = try #require(unauthorized["message"] as? String)
            #expect(!message.isEmpty && unauthorized["error_description"] as? String == message, "the description stays")
            let missing = try Self.object(try await h.get("/api/v2/no-such-thing"))
            #expect(missing["statusCode"] as? Int == 404 && missing["error"] as? String == "Not Found")
            let token = try Self.object(try await h.post("/oauth/token", ["grant_type": "nope", "client_id": h.clientID]))
            #expect(token["error"] as? String == "unsupported_grant_type" && token["statusCode"] == nil)
        }
    }
}
