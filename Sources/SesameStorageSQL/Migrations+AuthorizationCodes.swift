extension Migrations {
    /// Whether the user's address was proven when an authorization code was issued (0/1; null
    /// on codes issued before), so the exchange gives a refresh token only for a proven one.
    static let codeVerification = Migration(
        id: "0014_authorization_code_verification",
        sqlite: ["ALTER TABLE authorization_codes ADD COLUMN identifier_verified INTEGER"],
        postgres: ["ALTER TABLE authorization_codes ADD COLUMN identifier_verified BIGINT"])
}

