import ArgumentParser
import Foundation

/// `sesame-bench all`: every benchmark one after another, each against its bound measured in
/// its own run. `--json` prints one document: `{"benchmarks": [...]}`, each entry the keys of
/// that benchmark's own `--json` plus `benchmark`, its subcommand's name.
struct AllBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all", abstract: "Run otp-login, device-key, refresh, passkey and floor; report them together.")

    @OptionGroup var load: LoadOptions

    func run() async throws {
        var entries: [(name: String, json: String, text: String)] = []
        for name in ["otp-login", "device-key", "refresh"] {
            let report = try await httpBenchmark(name)
            entries.append((name, try report.json(), report.text))
        }
        let passkey = try await PasskeyBench.parse(["--duration", String(load.duration)]).measure()
        entries.append(("passkey", try passkey.json(), passkey.text))
        // The ceilings the login benchmarks are read against: a refresh grant's or device-key
        // login's one request, and an email-code login's three.
        for requests in [1, 3] {
            let floor = try await FloorBench.parse(
                ["--duration", String(load.duration), "--concurrency", String(load.concurrency), "--requests", String(requests)]
            ).measure()
            entries.append(("floor", try floor.json(), floor.text))
        }
        if load.json {
            print(try Self.document(entries.map { ($0.name, $0.json) }))
        } else {
            for entry in entries { print("== \(entry.name)\n\(entry.text)\n") }
        }
    }

    private func httpBenchmark(_ name: String) async throws -> Report {
        switch name {
        case "otp-login": return try await OTPLoginBench.parse(load.arguments).measure()
        case "device-key": return try await DeviceKeyBench.parse(load.arguments).measure()
        default: return try await RefreshBench.parse(load.arguments).measure()
        }
    }

    /// One JSON document of every benchmark's object with its name added.
    static func document(_ entries: [(name: String, json: String)]) throws -> String {
        let objects = try entries.map { entry -> [String: Any] in
            var object = try JSONSerialization.jsonObject(with: Data(entry.json.utf8)) as? [String: Any] ?? [:]
            object["benchmark"] = entry.name
            return object
        }
        let data = try JSONSerialization.data(withJSONObject: ["benchmarks": objects], options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }
}
