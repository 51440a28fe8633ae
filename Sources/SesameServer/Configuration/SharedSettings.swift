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
    /// Every key that may be stored.
    public static let keys: [String] = [
        "issuer", "audiences", "trust_proxy", "rp_id", "passkey_origins", "device_keys.allow_rsa1024",
        "signing_keys.refresh_interval",
        "rate_limit.start_per_ip", "rate_limit.start_per_ip_window", "rate_limit.start_per_recipient",
        "rate_limit.start_per_recipient_window",
        "tokens.id_token_lifetime", "tokens.access_token_lifetime", "tokens.refresh_token_lifetime",
        "email.provider", "email.smtp.host", "email.smtp.port", "email.smtp.username", "email.smtp.password",
        "email.smtp.security", "email.smtp.from",
        "sms.provider", "sms.twilio.account_sid", "sms.twilio.auth_token", "sms.twilio.from",
        "sms.twilio.messaging_service_sid", "sms.twilio.base_url", "sms.gateway.url", "sms.gateway.secret",
        "sms.gateway.subject", "sms.gateway.audience", "sms.gateway.sender",
    ]

    /// Keys whose values are never printed.
    static let secrets: Set<String> = ["email.smtp.password", "sms.twilio.auth_token", "sms.gateway.secret"]

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
