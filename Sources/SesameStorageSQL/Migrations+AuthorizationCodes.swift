extension Migrations {
    /// Whether the user's address was proven when an authorization code was issued (0/1; null
    /// on codes issued before), so the exchange gives a refresh token only for a proven one.
    static let codeVerification = Migration(
        id: "0014_authorization_code_verification",
        sqlite: ["ALTER TABLE authorization_codes ADD COLUMN identifier_verified INTEGER"],
        postgres: ["ALTER TABLE authorization_codes ADD COLUMN identifier_verified BIGINT"])
}

extension Migrations {
    /// The login (refresh-token family) an authorization code's exchange started, recorded as
    /// the code is consumed, so a replay of the code can revoke it (RFC 6749 §4.1.2).
    static let codeFamilies = Migration(
        id: "0015_authorization_code_families", sqlite: codeFamilySteps, postgres: codeFamilySteps)

    private static let codeFamilySteps = ["ALTER TABLE authorization_codes ADD COLUMN family_id TEXT"]
}
