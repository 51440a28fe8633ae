import Foundation
import SesameAPI
import SesameClientCore
import Testing

/// What AuthenticationServices hands back, as the JSON the server's webauthn grant reads.
@Suite("SesameClient: passkey answers from the platform")
struct PasskeyPlatformResultsTests {
    static let registration = PasskeyRegistrationRequest(
        rpID: "login.example.com", origin: "https://login.example.com", challenge: [1, 2, 3], userID: [4, 5, 6],
        userName: "ana@example.com")
    static let authentication = PasskeyAuthenticationRequest(
        rpID: "login.example.com", origin: "https://login.example.com", challenge: [1, 2, 3])

    static func clientData(_ type: String, challenge: [UInt8]) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"https://login.example.com"}"#.utf8)
    }

    @Test("a new platform passkey becomes RegistrationResponseJSON")
    func registrationJSON() throws {
        let clientData = Self.clientData("webauthn.create", challenge: [1, 2, 3])
        let response = try PasskeyResponse(
            registration: PasskeyRegistrationResult(
                credentialID: [9, 9], rawClientDataJSON: clientData, rawAttestationObject: [0xA3], attachment: .platform),
            for: Self.registration)
        #expect(response.id == "CQk" && response.rawId == "CQk" && response.type == "public-key")
        #expect(response.authenticatorAttachment == "platform")
        #expect(response.response == ["clientDataJSON": Base64URL.encode(clientData), "attestationObject": "ow"])
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(response)) as? [String: Any])
        #expect(json["authenticatorAttachment"] as? String == "platform" && json["rawId"] as? String == "CQk")
    }

    @Test("a security key's assertion without a user handle leaves userHandle out")
    func assertionJSON() throws {
        let clientData = Self.clientData("webauthn.get", challenge: [1, 2, 3])
        let result = PasskeyAssertionResult(
            credentialID: [7], rawClientDataJSON: clientData, rawAuthenticatorData: [1], signature: [2],
            userID: Data().map { $0 },
            attachment: .crossPlatform)
        let response = try PasskeyResponse(assertion: result, for: Self.authentication)
        #expect(response.response["userHandle"] == nil && response.response["signature"] == "Ag")
        #expect(response.authenticatorAttachment == "cross-platform")
        var platform = result
        platform.userID = [4, 5, 6]
        #expect(try PasskeyResponse(assertion: platform, for: Self.authentication).response["userHandle"] == "BAUG")
    }

    /// Attack (a stale or swapped answer): an AutoFill controller started for an earlier
    /// challenge delivers its assertion late, or a registration answer is offered to a
    /// sign-in; sending it would spend the ceremony on a refusal, so it is refused here.
    @Test("an answer for another challenge or ceremony type is refused before it is sent")
    func staleAutoFillAnswerRefused() {
        let stale = PasskeyAssertionResult(
            credentialID: [7], rawClientDataJSON: Self.clientData("webauthn.get", challenge: [9, 9, 9]),
            rawAuthenticatorData: [1],
            signature: [2], userID: nil, attachment: .platform)
        #expect(throws: SesameClientError.self) { try PasskeyResponse(assertion: stale, for: Self.authentication) }
        let swapped = PasskeyAssertionResult(
            credentialID: [7], rawClientDataJSON: Self.clientData("webauthn.create", challenge: [1, 2, 3]),
            rawAuthenticatorData: [1], signature: [2], userID: nil, attachment: .platform)
        #expect(throws: SesameClientError.self) { try PasskeyResponse(assertion: swapped, for: Self.authentication) }
        let bare = PasskeyRegistrationResult(
            credentialID: [9], rawClientDataJSON: Self.clientData("webauthn.create", challenge: [1, 2, 3]),
            rawAttestationObject: nil, attachment: .platform)
        #expect(throws: SesameClientError.self) { try PasskeyResponse(registration: bare, for: Self.registration) }
    }

    @Test("closing the sheet is a cancellation; other ASAuthorizationError codes are errors")
    func authorizationErrors() {
        #expect(PasskeyResponse.authorizationError(code: 1001) is CancellationError)
        #expect(PasskeyResponse.authorizationError(code: 1005) is CancellationError)
        #expect(PasskeyResponse.authorizationError(code: 1004) is SesameClientError)
    }

    @Test("a passkey sign-in through an authenticator sends its answer in the webauthn grant")
    func loginSendsPlatformAnswer() async throws {
        let server = FakeTokenServer()
        let credentials = try await server.client.loginWithPasskey(authenticator: PlatformLike())
        #expect(credentials.accessToken == "passkey-login")
        let answer = try #require(server.passkeyAnswer.current)
        #expect(answer["authenticatorAttachment"] as? String == "platform")
        #expect((answer["response"] as? [String: any Sendable])?["userHandle"] as? String == "BAUG")
    }
}

/// An authenticator that answers as AuthenticationServices would, through the same mapping.
struct PlatformLike: PasskeyAuthenticator {
    func register(_ request: PasskeyRegistrationRequest) async throws -> PasskeyResponse {
        throw CancellationError()
    }

    func authenticate(_ request: PasskeyAuthenticationRequest) async throws -> PasskeyResponse {
        try PasskeyResponse(
            assertion: PasskeyAssertionResult(
                credentialID: [7],
                rawClientDataJSON: PasskeyPlatformResultsTests.clientData("webauthn.get", challenge: request.challenge),
                rawAuthenticatorData: [1], signature: [2], userID: [4, 5, 6], attachment: .platform),
            for: request)
    }
}
