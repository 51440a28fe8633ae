import Configuration
import Foundation
import SystemPackage

/// The configuration's sources, highest first: flags, `SESAME_*` environment, the JSON file,
/// the settings stored in the database. ``ServerConfiguration/load(flags:environment:stored:)``
/// reads through all of them; `sesame admin settings show` asks each which keys it sets.
struct ConfigurationSources {
    /// Each provider with the name `settings show` gives it.
    let providers: [(name: String, provider: any ConfigProvider)]
    /// The JSON file read (it may not exist when it was not named).
    let filePath: String

    init(flags: [String: String], environment: [String: String], stored: [String: String]) async throws {
        let flagProvider = InMemoryProvider(
            name: "flags",
            values: Dictionary(
                uniqueKeysWithValues: flags.map {
                    (AbsoluteConfigKey(ConfigKey($0.key)), ConfigValue(.string($0.value), isSecret: false))
                }))
        let env = EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: ["sesame"])
        let early = ConfigReader(providers: [flagProvider, env])
        let dataDirectory = early.string(forKey: "data_dir") ?? "./sesame-data"
        let explicitFile = early.string(forKey: "config")
        filePath = explicitFile ?? URL(fileURLWithPath: dataDirectory).appendingPathComponent("sesame.json").path
        var providers: [(name: String, provider: any ConfigProvider)] = [("flag", flagProvider), ("environment", env)]
        do {
            let file = try await FileProvider<JSONSnapshot>(filePath: FilePath(filePath), allowMissing: explicitFile == nil)
            providers.append(("file", file))
        } catch {
            throw ConfigurationError(problems: ["config file \(filePath): \(error)"])
        }
        if !stored.isEmpty { providers.append(("database", SharedSettings.provider(stored))) }
        self.providers = providers
    }

    /// The value `key` has in the highest source that sets it, as text, and that source's name.
    func setting(_ key: String) -> (value: String, source: String)? {
        for (name, provider) in providers {
            if let value = Self.text(ConfigReader(provider: provider), key) { return (value, name) }
        }
        return nil
    }

    private static func text(_ reader: ConfigReader, _ key: String) -> String? {
        let key = ConfigKey(key)
        if let value = reader.string(forKey: key) { return value }
        if let value = reader.int(forKey: key) { return String(value) }
        if let value = reader.bool(forKey: key) { return String(value) }
        return reader.stringArray(forKey: key).map { $0.joined(separator: ",") }
    }
}

/// One setting as `sesame admin settings show` prints it: its effective value (secrets
/// masked) and where it came from.
public struct EffectiveSetting: Sendable, Encodable {
    public let key: String
    /// nil: not set, and no default.
    public let value: String?
    /// `flag`, `environment`, `file`, `database` or `default`.
    public let source: String

    /// Every field, `value` as null when there is none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .key)
        try container.encode(value, forKey: .value)
        try container.encode(source, forKey: .source)
    }

    private enum CodingKeys: String, CodingKey { case key, value, source }
}

extension ServerConfiguration {
    /// Every configuration key with its effective value and source, in key order.
    public static func effectiveSettings(
        flags: [String: String], environment: [String: String], stored: [String: String]
    ) async throws -> [EffectiveSetting] {
        let sources = try await ConfigurationSources(flags: flags, environment: environment, stored: stored)
        let defaults = ConfigurationKeys.defaults
        return ConfigurationKeys.kinds.keys.filter { $0 != "config" }.sorted().map { key in
            let (value, source) = sources.setting(key) ?? (defaults[key], "default")
            return EffectiveSetting(key: key, value: value.map { SharedSettings.display(key, $0) }, source: source)
        }
    }
}

extension ServerConfiguration {
    /// The `log_format` the flags, environment and file ask for, read before they are
    /// checked, so even a refused configuration is reported in the format asked for.
    public static func requestedLogFormat(flags: [String: String], environment: [String: String]) async -> String? {
        try? await ConfigurationSources(flags: flags, environment: environment, stored: [:]).setting("log_format")?.value
    }
}
