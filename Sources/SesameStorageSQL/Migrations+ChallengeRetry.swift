extension Migrations {
    /// The retry of a code exchange whose answer was lost: who works on a consumed code now
    /// (`retry_lease_until`, `retry_lease_owner`) and whether its login was answered (`answered_at`), after which the
    /// code is spent for good. Added columns only, so an older binary keeps working on the new
    /// schema.
    static let challengeRetries = Migration(
        id: "0017_challenge_retries",
        sqlite: challengeRetrySteps(integer: "INTEGER"),
        postgres: challengeRetrySteps(integer: "BIGINT"))

    private static func challengeRetrySteps(integer int: String) -> [String] {
        [
            "ALTER TABLE challenges ADD COLUMN retry_lease_until \(int)",
            "ALTER TABLE challenges ADD COLUMN retry_lease_owner TEXT",
            "ALTER TABLE challenges ADD COLUMN answered_at \(int)",
        ]
    }
}
