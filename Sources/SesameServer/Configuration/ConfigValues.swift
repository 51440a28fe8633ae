import Configuration
import Foundation

/// Typed reads from a `ConfigReader` that collect every problem instead of stopping at the
/// first, so a bad start reports all of them at once (dex `Validate`).
final class ConfigValues {
    let reader: ConfigReader
    private(set) var problems: [String] = []
    /// Every key asked for, in order, so the set of keys the configuration reads is known
    /// without a second list to keep in step (``SharedSettings/keys``).
    private(set) var keysRead: [String] = []
    /// The kind of value each key read takes (``ConfigurationKeys`` checks the file against it).
    private(set) var kinds: [String: Kind] = [:]
    /// The built-in default of each key that has one, as text (`sesame admin settings show`).
    private(set) var defaults: [String: String] = [:]

    /// What a key's value is: JSON files must give that type (or a string of it).
    enum Kind: Sendable {
        case string, int, bool, list
    }

    init(reader: ConfigReader) {
        self.reader = reader
    }

    func string(_ key: String, default value: String) -> String {
        defaults[key] = value
        return optionalString(key) ?? value
    }

    func optionalString(_ key: String) -> String? {
        read(key, .string)
        guard let value = reader.string(forKey: ConfigKey(key)), !value.isEmpty else {
            return reader.int(forKey: ConfigKey(key)).map(String.init)
        }
        return value
    }

    func int(_ key: String, default value: Int, range: ClosedRange<Int>) -> Int {
        defaults[key] = String(value)
        return optionalInt(key, range: range) ?? value
    }

    func bool(_ key: String, default value: Bool) -> Bool {
        defaults[key] = String(value)
        return optionalBool(key) ?? value
    }

    /// nil when the key is not set (or is invalid, which is recorded as a problem).
    func optionalInt(_ key: String, range: ClosedRange<Int>) -> Int? {
        read(key, .int)
        if let number = reader.int(forKey: ConfigKey(key)) { return check(key, number, range) }
        guard let text = reader.string(forKey: ConfigKey(key)), !text.isEmpty else { return nil }
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
            problems.append("\(key) (\(Self.environmentName(key))): '\(text)' is not a whole number")
            return nil
        }
        return check(key, number, range)
    }

    func optionalBool(_ key: String) -> Bool? {
        read(key, .bool)
        if let flag = reader.bool(forKey: ConfigKey(key)) { return flag }
        guard let text = reader.string(forKey: ConfigKey(key))?.lowercased(), !text.isEmpty else { return nil }
        switch text {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default:
            problems.append("\(key) (\(Self.environmentName(key))): '\(text)' is not true or false")
            return nil
        }
    }

    func list(_ key: String) -> [String] {
        read(key, .list)
        if let array = reader.stringArray(forKey: ConfigKey(key)) { return array }
        return (optionalString(key) ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    func choice(_ key: String, default value: String, among choices: [String]) -> String {
        let chosen = string(key, default: value)
        guard choices.contains(chosen) else {
            problems.append(
                "\(key) (\(Self.environmentName(key))): '\(chosen)' must be one of \(choices.joined(separator: ", "))")
            return value
        }
        return chosen
    }

    func problem(_ message: String) {
        problems.append(message)
    }

    /// Records a key read and its kind; the first kind stays (a list reads its text as a string).
    private func read(_ key: String, _ kind: Kind) {
        keysRead.append(key)
        if kinds[key] == nil { kinds[key] = kind }
    }

    private func check(_ key: String, _ number: Int, _ range: ClosedRange<Int>) -> Int? {
        guard range.contains(number) else {
            problems.append("\(key) (\(Self.environmentName(key))): \(number) is outside \(range.lowerBound)…\(range.upperBound)")
            return nil
        }
        return number
    }

    /// The environment variable that sets `key`: `rate_limit.start_per_ip` → `SESAME_RATE_LIMIT_START_PER_IP`.
    static func environmentName(_ key: String) -> String {
        "SESAME_" + key.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
    }
}
