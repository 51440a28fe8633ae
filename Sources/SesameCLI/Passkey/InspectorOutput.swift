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
        let credentialPublicKey: String
        let aaguid: String
        /// The members an assertion reports as well, encoded beside these.
        let credential: Authentication

        init(_ result: VerifiedRegistration) {
            fmt = result.format.rawValue
            credentialPublicKey = Base64URL.encode(result.credentialPublicKey)
            aaguid = result.aaguid.uuidString.lowercased()
            credential = Authentication(credentialID: result.credentialID, signCount: result.signCount, flags: result.flags)
        }

        enum CodingKeys: String, CodingKey {
            case fmt, aaguid
            case credentialPublicKey = "credential_public_key"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(fmt, forKey: .fmt)
            try container.encode(credentialPublicKey, forKey: .credentialPublicKey)
            try container.encode(aaguid, forKey: .aaguid)
            try credential.encode(to: encoder)
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
            self.init(credentialID: result.credentialID, signCount: result.newSignCount, flags: result.flags)
        }

        /// The credential's state after a ceremony: everything but the id and counter follows from the flags.
        init(credentialID: [UInt8], signCount: UInt32, flags: AuthenticatorFlags) {
            self.credentialID = Base64URL.encode(credentialID)
            self.signCount = signCount
            userVerified = flags.userVerified
            credentialDeviceType = flags.deviceType.rawValue
            credentialBackedUp = flags.backedUp
            self.flags = Flags(flags: flags)
        }

        enum CodingKeys: String, CodingKey {
            case flags
            case credentialID = "credential_id", signCount = "sign_count", userVerified = "user_verified"
            case credentialDeviceType = "credential_device_type", credentialBackedUp = "credential_backed_up"
        }
    }
}
