import ArgumentParser
import Foundation
import SesameAPI
import SesameWebAuthn

/// What `sesame passkey verify-*` reads and prints. The success object uses the member names and
/// encodings of the shared conformance corpus's `expected` objects (base64url bytes, lowercase
/// AAGUID), plus the authenticator data flags.
enum InspectorOutput {
    /// The credential JSON from standard input, checked to be a JSON object.
    /// - Throws: `ValidationError` (exit 64) when stdin is empty or not a JSON object.
    static func readCredential() throws -> Data {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard !data.isEmpty else {
            throw ValidationError("Expected the credential JSON (PublicKeyCredential.toJSON()) on standard input.")
        }
        guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
            throw ValidationError("Standard input is not a JSON object; expected PublicKeyCredential.toJSON() output.")
        }
        return data
    }

    /// Prints the one-line failure and exits with status 1.
    static func fail(_ error: WebAuthnError) -> ExitCode {
        print(error.description.replacingOccurrences(of: "\n", with: " "))
        return ExitCode.failure
    }

    /// Writes a note for humans to standard error; standard output stays one JSON object.
    static func note(_ text: String) {
        printError("note: \(text)")
    }

    /// The authenticator data flags as booleans.
    struct Flags: Encodable {
        let flags: AuthenticatorFlags

        enum CodingKeys: String, CodingKey {
            case up = "UP", uv = "UV", be = "BE", bs = "BS", at = "AT", ed = "ED"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(flags.userPresent, forKey: .up)
            try container.encode(flags.userVerified, forKey: .uv)
            try container.encode(flags.backupEligible, forKey: .be)
            try container.encode(flags.backedUp, forKey: .bs)
            try container.encode(flags.attestedCredentialData, forKey: .at)
            try container.encode(flags.extensionData, forKey: .ed)
        }
    }

    /// A verified registration: the credential record to store.
    struct Registration: Encodable {
        let fmt: String
        let credentialID: String
        let credentialPublicKey: String
        let signCount: UInt32
        let aaguid: String
        let userVerified: Bool
        let credentialDeviceType: String
        let credentialBackedUp: Bool
        let flags: Flags

        init(_ result: VerifiedRegistration) {
            fmt = result.format.rawValue
            credentialID = Base64URL.encode(result.credentialID)
            credentialPublicKey = Base64URL.encode(result.credentialPublicKey)
            signCount = result.signCount
            aaguid = result.aaguid.uuidString.lowercased()
            userVerified = result.userVerified
            credentialDeviceType = result.deviceType.rawValue
            credentialBackedUp = result.backedUp
            flags = Flags(flags: result.flags)
        }

        enum CodingKeys: String, CodingKey {
            case fmt, aaguid, flags
            case credentialID = "credential_id", credentialPublicKey = "credential_public_key"
            case signCount = "sign_count", userVerified = "user_verified"
            case credentialDeviceType = "credential_device_type", credentialBackedUp = "credential_backed_up"
        }
    }

    /// A verified assertion: the values to write back to the credential record.
    struct Authentication: Encodable {
        let credentialID: String
        let signCount: UInt32
        let userVerified: Bool
        let credentialDeviceType: String
        let credentialBackedUp: Bool
        let flags: Flags

        init(_ result: VerifiedAuthentication) {
            credentialID = Base64URL.encode(result.credentialID)
            signCount = result.newSignCount
            userVerified = result.userVerified
            credentialDeviceType = result.deviceType.rawValue
            credentialBackedUp = result.backedUp
            flags = Flags(flags: result.flags)
        }

        enum CodingKeys: String, CodingKey {
            case flags
            case credentialID = "credential_id", signCount = "sign_count", userVerified = "user_verified"
            case credentialDeviceType = "credential_device_type", credentialBackedUp = "credential_backed_up"
        }
    }
}
