import ArgumentParser
import Foundation
import SesameServer
import SesameStorageSQL

/// `sesame admin settings`: configuration stored in the database, which every instance reads
/// at start, so instances need nothing but the database URL.
///
/// ```
/// $ sesame admin settings set issuer=https://login.example.com/ email.provider=smtp email.smtp.host=mail.internal
/// $ sesame admin settings list
/// ```
struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings", abstract: "Shared settings kept in the database (read by every instance at start).",
        discussion: """
            Precedence, highest first: flags, SESAME_* environment, the JSON config file, these \
            settings, defaults. Instances read them when they start: restart them (one at a time) to apply \
            a change.
            """,
        subcommands: [List.self, Show.self, Assign.self, Unset.self, Keys.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Every effective setting of this instance and where it came from (secrets masked).",
            discussion: "Sources: flag, environment, file, database (these shared settings) or default.")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let flags = storage.flags
            let stored = try await withStorage(storage) { try await $0.storedSettings() }
            let settings = try await CLIConfiguration.reporting {
                try await ServerConfiguration.effectiveSettings(
                    flags: flags, environment: ProcessInfo.processInfo.environment, stored: stored)
            }
            if json { return try printJSON(settings) }
            let width = settings.map(\.key.count).max() ?? 0
            for setting in settings {
                let key = setting.key.padding(toLength: width, withPad: " ", startingAt: 0)
                print(
                    "\(key)  \(setting.source.padding(toLength: 11, withPad: " ", startingAt: 0))  \(setting.value ?? "(none)")")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List stored settings (secrets masked).")
        @OptionGroup var storage: StorageOptions
        @Flag(help: "Print a JSON object.") var json = false

        func run() async throws {
            let stored = try await withStorage(storage) { try await $0.storedSettings() }
            let shown = stored.map { ($0.key, SharedSettings.display($0.key, $0.value)) }.sorted { $0.0 < $1.0 }
            if json { return try printJSON(Dictionary(uniqueKeysWithValues: shown)) }
            for (key, value) in shown { print("\(key) = \(value)") }
        }
    }

    struct Assign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Store settings; refused as a whole if any key is unknown or the result is invalid.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "key=value pairs, e.g. issuer=https://login.example.com/") var assignments: [String]

        func run() async throws {
            let values = try Self.parse(assignments)
            try await withStorage(storage) { store in
                let merged = try await store.storedSettings().merging(values) { $1 }
                let problems = SharedSettings.problems(in: merged)
                guard problems.isEmpty else { throw CommandFailure(problems.joined(separator: "\n")) }
                try await store.updateSettings(set: values, remove: [], at: Date())
            }
            print("stored \(values.keys.sorted().joined(separator: ", ")); restart instances to apply")
        }

        static func parse(_ assignments: [String]) throws -> [String: String] {
            var values: [String: String] = [:]
            for assignment in assignments {
                let parts = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("'\(assignment)' is not key=value") }
                values[String(parts[0])] = String(parts[1])
            }
            return values
        }
    }

    struct Unset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unset", abstract: "Remove stored settings (their defaults apply again).")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "Keys to remove.") var keys: [String]

        func run() async throws {
            let keys = keys
            try await withStorage(storage) { store in
                let remaining = try await store.storedSettings().filter { !keys.contains($0.key) }
                let problems = SharedSettings.problems(in: remaining)
                guard problems.isEmpty else { throw CommandFailure(problems.joined(separator: "\n")) }
                try await store.updateSettings(set: [:], remove: keys, at: Date())
            }
            print("removed \(keys.joined(separator: ", ")); restart instances to apply")
        }
    }

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "keys", abstract: "Print the keys that may be stored.")

        func run() async throws {
            for key in SharedSettings.keys { print(key) }
        }
    }
}
