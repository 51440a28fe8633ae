import SesameCore
import Testing

/// Core's refusals are typed: a page or a retry decides on ``SesameError/Refusal``, and the
/// wire code and description stay Auth0's, byte for byte.
@Suite("Core: typed refusals")
struct RefusalTests {
    /// A start request to the world's application, with the given properties.
    static func start(
        _ world: CoreWorld, clientID: String?? = .none, connection: String? = "email", email: String? = nil,
        phoneNumber: String? = nil, send: String? = nil
    ) async throws {
        _ = try await world.sesame.passwordless.start(
            PasswordlessStartRequest(
                clientID: clientID ?? world.application.clientID, clientSecret: nil, connection: connection, email: email,
                phoneNumber: phoneNumber, send: send, ip: "198.51.100.7"))
    }

    @Test("each refused start property carries its type, Auth0's bad.* code and its exact text")
    func startRefusals() async throws {
        try await CoreWorld.run { world in
            let cases: [(PasswordlessStartRefusal, String, String, () async throws -> Void)] = [
                (
                    .clientID, "bad.client_id", "Missing required property: client_id",
                    { try await Self.start(world, clientID: .some(nil)) }
                ),
                (
                    .connection, "bad.connection", "Missing required property: connection",
                    { try await Self.start(world, connection: nil) }
                ),
                (.connection, "bad.connection", "Connection does not exist", { try await Self.start(world, connection: "fax") }),
                (.email, "bad.email", "Missing required property: email", { try await Self.start(world) }),
                (
                    .email, "bad.email", "Invalid email address: must look like name@example.com",
                    { try await Self.start(world, email: "ana") }
                ),
                (
                    .phoneNumber, "bad.phone_number", "Missing required property: phone_number",
                    { try await Self.start(world, connection: "sms") }
                ),
                (
                    .phoneNumber, "bad.phone_number", "String does not match pattern: ^\\+[0-9]{1,15}$",
                    {
                        try await Self.start(world, connection: "sms", phoneNumber: "0415")
                    }
                ),
                (
                    .send, "bad.request", "send must be one of: code, link, link_ios, link_android",
                    {
                        try await Self.start(world, email: "ana@example.com", send: "pigeon")
                    }
                ),
            ]
            for (property, code, message, body) in cases {
                let error = try await refusal(body)
                #expect(error.refusal == .passwordlessStart(property), "\(message)")
                #expect(error.kind == .badRequest && error.code.rawValue == code && error.message == message)
            }
        }
    }

    @Test("a wrong code is a wrong credential: invalid_grant with Auth0's text")
    func wrongCode() async throws {
        try await CoreWorld.run { world in
            _ = try await world.code(for: "ana@example.com")
            let error = try await refusal {
                _ = try await world.sesame.passwordless.finish(
                    PasswordlessCredentials(connection: "email", username: "ana@example.com", code: "000000"),
                    request: world.request(), ip: nil)
            }
            #expect(error.refusal == .wrongCredential)
            #expect(error.kind == .forbidden && error.code.rawValue == "invalid_grant")
            #expect(error.message == "Wrong email or verification code.")
        }
    }

    @Test("an unknown link request is expired: expired_token with its text")
    func expiredLink() async throws {
        try await CoreWorld.run { world in
            let error = try await refusal {
                _ = try await world.sesame.linkRequests.complete(pollSecret: "nothing", clientID: world.application.clientID)
            }
            #expect(error.refusal == .link(.expired))
            #expect(error.kind == .badRequest && error.code.rawValue == "expired_token")
            #expect(error.message == "The link request has expired or was already used: start again.")
        }
    }

    @Test("the factories carry their refusal and keep their wire codes")
    func factories() {
        #expect(SesameError.invalidRequest("x").refusal == .malformedRequest)
        #expect(SesameError.invalidRequest("x").code.rawValue == "invalid_request")
        #expect(SesameError.grantNotAllowed("password").refusal == .grantNotAllowed)
        #expect(SesameError.grantNotAllowed("password").code.rawValue == "unauthorized_client")
        #expect(SesameError(.noProvider(.sms), "x").code.rawValue == "sms_provider_error")
        #expect(SesameError(.noProvider(.email), "x").code.rawValue == "email_provider_error")
        #expect(SesameError(.link(.pending), "x").code.rawValue == "authorization_pending")
        #expect(SesameError(.link(.denied), "x").code == SesameError(.link(.wrongMatch), "x").code)
        #expect(SesameError.accessDenied("x").refusal == nil)
    }
}
