/// §8.7 `none`: the statement must be empty; there is nothing to verify.
enum NoneAttestation: AttestationVerifier {
    static func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        guard input.statement.isEmpty else {
            throw WebAuthnError.malformedAttestationStatement.with(detail: "none attStmt must be an empty map")
        }
        return AttestationOutcome(type: .none, trustPath: [])
    }
}
