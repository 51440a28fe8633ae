import ArgumentParser

/// `sesame admin`: applications, connections and users. Changes reach running servers within
/// a second: they read them from the database, keeping applications and connections for a
/// second at most.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract:
            "Manage applications, APIs, roles, connections, users, passkeys, device credentials, management tokens, deliveries, webhooks, message templates, signing keys and shared settings; migrate, back up and restore; move to PostgreSQL.",
        subcommands: [
            AppsCommand.self, ConnectionsCommand.self, UsersCommand.self, PasskeysCommand.self, TokensCommand.self,
            DevicesCommand.self, SessionsCommand.self, DeliveriesCommand.self, WebhooksCommand.self, TemplatesCommand.self,
            AuditCommand.self, ApisCommand.self, RolesCommand.self,
            KeysCommand.self, SettingsCommand.self, MigrateCommand.self, BackupCommand.self, RestoreCommand.self,
            MigrateToPostgresCommand.self,
        ])
}
