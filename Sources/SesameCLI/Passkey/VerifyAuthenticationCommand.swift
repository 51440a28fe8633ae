import ArgumentParser
import Foundation
import SesameAPI
import SesameWebAuthn

/// `sesame passkey verify-authentication`: runs §7.2 over a `navigator.credentials.get()` response.
struct VerifyAuthenticationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-authentication",
        abstract: "Verify an authentication (assertion) response read from standard input.",
        discussion: """
            Example:
              sesame passkey verify-authentication --rp-id=example.org \\
                --origin=https://example.org --challenge=q83vEjRWeJA \\
                --credential-public-key=pQECAyYgASFYI... --sign-count=0 < assertion.json

            --credential-public-key is the credential_public_key that verify-registration printed (the \
            COSE_Key your server stored). The user presence (UP) flag is always required in assertions.

            On success (exit 0) standard output is one JSON object: credential_id, sign_count (the new \
            counter to store), user_verified, credential_device_type, credential_backed_up, and flags \
            {UP, UV, BE, BS, AT, ED}.

            On a failed check (exit 1) standard output is one line naming the check and why, e.g. \
            "sign_count_not_increased: the signature counter did not increase; the authenticator may be \
            cloned (received 5, stored 7)". Usage errors exit 64 with the message on standard error.
            """)

    @OptionGroup var ceremony: CeremonyOptions

    @Option(help: ArgumentHelp("The stored credential public key: base64url COSE_Key bytes.", valueName: "base64url"))
    var credentialPublicKey: String

    @Option(
        help: ArgumentHelp(
            "The stored signature counter. Unless it and the received counter are both 0, the received one must be larger.",
            valueName: "count"))
    var signCount: UInt32 = 0

    func validate() throws {
        guard let key = Base64URL.decodeTolerant(credentialPublicKey), !key.isEmpty else {
            throw ValidationError("--credential-public-key is not base64url: \(credentialPublicKey)")
        }
    }

    func run() async throws {
        let relyingParty = ceremony.relyingParty()
        let json = try InspectorOutput.readCredential()
        let result: VerifiedAuthentication
        do {
            let credential = try AuthenticationCredential(json: json)
            result = try relyingParty.verifyAuthentication(
                credential: credential, expectedChallenge: ceremony.challengeBytes,
                credentialPublicKey: Base64URL.decodeTolerant(credentialPublicKey) ?? [], storedSignCount: signCount)
        } catch {
            throw InspectorOutput.fail(error)
        }
        try printJSON(InspectorOutput.Authentication(result))
    }
}
