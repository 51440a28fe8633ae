import Configuration
import Foundation

/// The configuration an operator stores in the database (`sesame admin settings`) so every
/// instance reads it from there and needs nothing but the database URL: everything except
/// where this instance listens, how it reaches the database, and how much it logs.
///
/// Precedence, highest first: flags, `SESAME_*` environment, the JSON file, the database,
/// built-in defaults. Connections are not here: they live in their own table
/// (`sesame admin connections`).
public enum SharedSettings {
    /// What belongs to each instance: where it listens, how it reaches the database, how
    /// much it logs, how many threads its machine gives it.
    static let local: Set<String> = [
        "host", "port", "data_dir", "database", "database_url", "database_pool_size", "database_timeout", "log_level",
        "http_threads", "database_prepared_statements", "master_key", "master_key_file",
    ]

    /// Every key that may be stored: every key the configuration reads, but the local ones
    /// and the connections' (a new configuration key is storable without listing it twice).
    public static let keys: [String] = {
        let values = ConfigValues(reader: ConfigReader(providers: [InMemoryProvider(values: [:])]))
        _ = try? ServerConfiguration.parse(values)
        var seen: Set<String> = []
        return values.keysRead.filter { !local.contains($0) && !$0.hasPrefix("connections.") && seen.insert($0).inserted }
    }()

    /// Keys whose values are never printed.
    static let secrets: Set<String> = [
        "master_key", "email.smtp.password", "sms.twilio.auth_token", "sms.gateway.secret", "email.gateway.secret",
    ]

    /// Why `settings` cannot be stored: unknown keys, and every problem the configuration
    /// they make would have on its own. Empty when they can.
    public static func problems(in settings: [String: String]) -> [String] {
        let unknown = settings.keys.filter { !keys.contains($0) }.sorted().map {
            "\($0) is not a shared setting (see `sesame admin settings keys`; host, port, data_dir, database* and "
                + "log_level belong to each instance)"
        }
        do {
            _ = try ServerConfiguration.parse(ConfigValues(reader: ConfigReader(providers: [provider(settings)])))
            return unknown
        } catch let error as ConfigurationError {
            return unknown + error.problems
        } catch {
            return unknown + ["\(error)"]
        }
    }

    /// `value` as it may be shown: secrets masked.
    public static func display(_ key: String, _ value: String) -> String {
        secrets.contains(key) ? "****" : value
    }

    /// The stored settings as the lowest configuration source above the defaults.
    static func provider(_ settings: [String: String]) -> InMemoryProvider {
        let values = settings.filter { keys.contains($0.key) }.map {
            (AbsoluteConfigKey(ConfigKey($0.key)), ConfigValue(.string($0.value), isSecret: secrets.contains($0.key)))
        }
        return InMemoryProvider(name: "database", values: Dictionary(uniqueKeysWithValues: values))
    }
}
