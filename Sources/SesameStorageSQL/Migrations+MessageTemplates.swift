extension Migrations {
    /// Operators' message template overrides, by name, language and scope.
    static let messageTemplates = Migration(
        id: "0011_message_templates",
        sqlite: messageTemplateSteps(integer: "INTEGER"),
        postgres: messageTemplateSteps(integer: "BIGINT"))

    private static func messageTemplateSteps(integer int: String) -> [String] {
        [
            """
            CREATE TABLE message_templates (name TEXT NOT NULL, language TEXT NOT NULL, scope TEXT NOT NULL,
              body TEXT NOT NULL, updated_at \(int) NOT NULL, PRIMARY KEY (name, language, scope))
            """
        ]
    }
}
