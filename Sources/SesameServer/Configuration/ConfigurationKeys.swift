import Configuration
import Foundation
import SesameAPI

/// The keys the configuration knows, with the kind of value each takes, and the checks that
/// refuse the rest: a misspelt key in the JSON file or a `SESAME_*` variable stops the start,
/// naming it and the closest known key, instead of being silently ignored.
enum ConfigurationKeys {
    /// Every key ``ServerConfiguration`` reads, and its kind, found by reading an empty
    /// configuration (so a new key is known without listing it twice), plus `config`.
    static let kinds: [String: ConfigValues.Kind] = empty.kinds.merging(["config": .string]) { first, _ in first }

    /// Each key's built-in default, as text; keys without one are absent.
    static let defaults: [String: String] = empty.defaults

    /// An empty configuration read once: what it asks for is every key there is.
    private static let empty: (kinds: [String: ConfigValues.Kind], defaults: [String: String]) = {
        let values = ConfigValues(reader: ConfigReader(providers: [InMemoryProvider(values: [:])]))
        _ = try? ServerConfiguration.parse(values)
        return (values.kinds, values.defaults)
    }()

    /// The `SESAME_*` variable of every key.
    static let environmentNames: [String: String] = Dictionary(
        uniqueKeysWithValues: kinds.keys.map { (ConfigValues.environmentName($0), $0) })

    /// `SESAME_*` variables that are not server configuration, so never refused: the client
    /// commands' defaults (`sesame login`), the test harness and the project's tools.
    static let otherVariables: Set<String> = [
        "SESAME_DOMAIN", "SESAME_CLIENT_ID", "SESAME_BIN", "SESAME_RELEASE_TARBALL", "SESAME_LOAD_TESTS",
        "SESAME_FUZZ_TARGET", "SESAME_SHARED_DIR", "SESAME_ARTIFACTS", "SESAME_CHROMIUM",
    ]
    /// Prefixes of further such variables (`SESAME_TEST_POSTGRES_URL`, `SESAME_SCHEMATHESIS_SEED`, …).
    static let otherPrefixes = ["SESAME_TEST_", "SESAME_SCHEMATHESIS_"]

    /// One problem per `SESAME_*` variable that names no configuration key.
    static func environmentProblems(_ environment: [String: String]) -> [String] {
        environment.keys.filter { $0.hasPrefix("SESAME_") }.sorted().compactMap { name in
            guard environmentNames[name] == nil, !otherVariables.contains(name),
                !otherPrefixes.contains(where: { name.hasPrefix($0) })
            else { return nil }
            return "unknown environment variable \(name)" + suggestion(for: name, among: Array(environmentNames.keys))
        }
    }

    /// One problem per key of the JSON file that is unknown or holds the wrong type of value.
    static func fileProblems(_ data: Data, path: String) -> [String] {
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: data) else { return [] }
        return leaves(json, under: nil).sorted { $0.key < $1.key }.compactMap { key, value in
            guard let kind = kinds[key] else {
                return "unknown key \(key) in \(path)" + suggestion(for: key, among: Array(kinds.keys))
            }
            return typeProblem(value, kind).map { "\(key) in \(path): \($0)" }
        }
    }

    /// The file's values by dotted key: objects are walked, anything else is a value.
    private static func leaves(_ value: JSONValue, under prefix: String?) -> [String: JSONValue] {
        guard case .object(let members) = value else { return prefix.map { [$0: value] } ?? [:] }
        var found: [String: JSONValue] = [:]
        for (name, member) in members {
            found.merge(leaves(member, under: prefix.map { "\($0).\(name)" } ?? name)) { first, _ in first }
        }
        return found
    }

    /// Why `value` cannot be a `kind`, or nil when it can. A string is always accepted: it is
    /// parsed, and reported if it does not parse, like an environment variable.
    private static func typeProblem(_ value: JSONValue, _ kind: ConfigValues.Kind) -> String? {
        switch (kind, value) {
        case (_, .null), (_, .string): return nil
        case (.int, .number(let number)) where number.rounded() == number: return nil
        case (.string, .number(let number)) where number.rounded() == number: return nil
        case (.bool, .bool): return nil
        case (.list, .array(let items)) where items.allSatisfy({ if case .string = $0 { true } else { false } }): return nil
        case (.int, _): return "\(describe(value)) is not a whole number"
        case (.bool, _): return "\(describe(value)) is not true or false"
        case (.list, _): return "\(describe(value)) is not a list of strings"
        case (.string, _): return "\(describe(value)) is not a string"
        }
    }

    /// The value as the file wrote it, near enough to recognise.
    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): String(flag)
        case .number(let number): number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .string(let text): "\"\(text)\""
        case .array(let items): "[" + items.map(describe).joined(separator: ",") + "]"
        case .object: "an object"
        }
    }

    /// `: did you mean X?` for the known name closest to `name`, when it is close enough to be
    /// a slip (at most a third of its letters, and at least two, differ); else nothing.
    static func suggestion(for name: String, among known: [String]) -> String {
        let scored = known.map { ($0, editDistance(name, $0)) }.min { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let (closest, distance) = scored, distance <= max(2, name.count / 3) else { return "" }
        return ": did you mean \(closest)?"
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
