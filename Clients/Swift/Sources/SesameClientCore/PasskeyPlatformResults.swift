import Foundation
import SesameAPI

/// Where a passkey lives: this device's platform authenticator (iCloud Keychain) or a
/// security key.
public enum PasskeyAttachment: String, Sendable, Equatable {
    case platform
    case crossPlatform = "cross-platform"
}

/// A new credential as AuthenticationServices reports it (`ASAuthorization…Registration`), in
/// bytes, before it becomes the JSON the server expects.
public struct PasskeyRegistrationResult: Sendable, Equatable {
    public var credentialID: [UInt8]
    public var rawClientDataJSON: [UInt8]
    /// Nil when the platform gave none; the server needs it.
    public var rawAttestationObject: [UInt8]?
    public var attachment: PasskeyAttachment

    /// Creates a result.
    public init(credentialID: [UInt8], rawClientDataJSON: [UInt8], rawAttestationObject: [UInt8]?, attachment: PasskeyAttachment)
    {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAttestationObject = rawAttestationObject
        self.attachment = attachment
    }
}

/// An assertion as AuthenticationServices reports it (`ASAuthorization…Assertion`).
public struct PasskeyAssertionResult: Sendable, Equatable {
    public var credentialID: [UInt8]
    public var rawClientDataJSON: [UInt8]
    public var rawAuthenticatorData: [UInt8]
    public var signature: [UInt8]
    /// The user handle a discoverable credential keeps; empty or nil for a security key that
    /// keeps none.
    public var userID: [UInt8]?
    public var attachment: PasskeyAttachment

    /// Creates a result.
    public init(
        credentialID: [UInt8], rawClientDataJSON: [UInt8], rawAuthenticatorData: [UInt8], signature: [UInt8], userID: [UInt8]?,
        attachment: PasskeyAttachment
    ) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAuthenticatorData = rawAuthenticatorData
        self.signature = signature
        self.userID = userID
        self.attachment = attachment
    }
}

extension PasskeyResponse {
    /// The browser's `RegistrationResponseJSON` for a new credential, checked to answer
    /// `request`.
    /// - Throws: ``SesameClientError`` when the answer is for another ceremony or lacks the
    ///   attestation object.
    public init(registration: PasskeyRegistrationResult, for request: PasskeyRegistrationRequest) throws {
        try Self.check(registration.rawClientDataJSON, type: "webauthn.create", challenge: request.challenge)
        guard let attestation = registration.rawAttestationObject, !attestation.isEmpty, !registration.credentialID.isEmpty
        else { throw SesameClientError.invalidResponse("the authenticator returned no attestation object") }
        self.init(
            credentialID: registration.credentialID,
            response: [
                "clientDataJSON": Base64URL.encode(registration.rawClientDataJSON),
                "attestationObject": Base64URL.encode(attestation),
            ])
        authenticatorAttachment = registration.attachment.rawValue
    }

    /// The browser's `AuthenticationResponseJSON` for an assertion, checked to answer
    /// `request`; `userHandle` is left out when the authenticator keeps none.
    /// - Throws: ``SesameClientError`` when the answer is for another ceremony or incomplete.
    public init(assertion: PasskeyAssertionResult, for request: PasskeyAuthenticationRequest) throws {
        try Self.check(assertion.rawClientDataJSON, type: "webauthn.get", challenge: request.challenge)
        guard !assertion.credentialID.isEmpty, !assertion.rawAuthenticatorData.isEmpty, !assertion.signature.isEmpty else {
            throw SesameClientError.invalidResponse("the authenticator returned an incomplete assertion")
        }
        var response = [
            "clientDataJSON": Base64URL.encode(assertion.rawClientDataJSON),
            "authenticatorData": Base64URL.encode(assertion.rawAuthenticatorData),
            "signature": Base64URL.encode(assertion.signature),
        ]
        if let userID = assertion.userID, !userID.isEmpty { response["userHandle"] = Base64URL.encode(userID) }
        self.init(credentialID: assertion.credentialID, response: response)
        authenticatorAttachment = assertion.attachment.rawValue
    }

    /// The client data must be for this ceremony: an AutoFill controller started for an
    /// earlier challenge can still deliver its answer, and sending it would spend the new
    /// ceremony on a refusal.
    private static func check(_ clientDataJSON: [UInt8], type: String, challenge: [UInt8]) throws {
        guard let clientData = try? JSONSerialization.jsonObject(with: Data(clientDataJSON)) as? [String: Any],
            clientData["type"] as? String == type,
            (clientData["challenge"] as? String).flatMap(Base64URL.decode) == challenge
        else { throw SesameClientError.invalidResponse("the authenticator answered another ceremony") }
    }

    /// The error for an `ASAuthorizationError.Code` raw value: the person closing the sheet
    /// (`canceled`), or AutoFill finding nothing to offer (`notInteractive`), is a
    /// `CancellationError`, which the login flow shows no message for.
    public static func authorizationError(code: Int) -> any Error {
        switch code {
        case 1001, 1005: CancellationError()
        default: SesameClientError.invalidResponse("the passkey ceremony failed (ASAuthorizationError \(code))")
        }
    }
}
