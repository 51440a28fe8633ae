extension Migrations {
    /// Signing-key rotation: a key may be published before it signs, and withdrawn later.
    /// Keys that exist already sign from their creation, as they always did.
    static let keyRotation = Migration(
        id: "0004_key_rotation",
        sqlite: keyRotationSteps(integer: "INTEGER"),
        postgres: keyRotationSteps(integer: "BIGINT"))

    private static func keyRotationSteps(integer int: String) -> [String] {
        [
            "ALTER TABLE signing_keys ADD COLUMN active_from \(int)",
            "ALTER TABLE signing_keys ADD COLUMN retired_at \(int)",
            "UPDATE signing_keys SET active_from = created_at",
        ]
    }
}
