import ArgumentParser
import Foundation
import Synchronization

/// `sesame-bench all`: every benchmark one after another, each against its bound measured in
/// its own run. `--json` prints one document: `{"benchmarks": [...]}`, each entry the keys of
/// that benchmark's own `--json` plus `benchmark`, its subcommand's name.
struct AllBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all",
        abstract:
            "Run otp-login, device-key, refresh (each with its floor and p99 at half its peak), passkey, and with --postgres otp-login on PostgreSQL; report them together."
    )

    @OptionGroup var load: LoadOptions
    @Option(
        help:
            "A postgres:// URL: also run otp-login on this PostgreSQL database (one instance) and report it against SQLite's rate in the same run."
    )
    var postgres: String?

    func run() async throws {
        var entries: [(name: String, json: String, text: String)] = []
        var floors: [(name: String, json: String, text: String)] = []
        // Each login benchmark is read against the ceiling of its own shape, measured in
        // slices between its own on the same machine (HTTPBench.interleaved): an email-code
        // login's three requests, a refresh grant's or a device-key login's one. The floors
        // are listed too, as `floor` entries.
        for (name, requests) in [("otp-login", 3), ("device-key", 1), ("refresh", 1)] {
            var (report, floor) = try await httpBenchmark(name, besideFloorOf: requests)
            report.floor(floor)
            entries.append((name, try report.json(), report.text))
            floors.append(("floor", try floor.json(), floor.text))
            if name == "otp-login", let postgres {
                var onPostgres = try await OTPLoginBench.parse(load.arguments + ["--database", postgres]).measure()
                onPostgres.sqlite(report)
                entries.append(("otp-login-postgresql", try onPostgres.json(), onPostgres.text))
            }
        }
        let passkey = try await PasskeyBench.parse(["--duration", String(load.duration)]).measure()
        entries.append(("passkey", try passkey.json(), passkey.text))
        entries += floors
        if load.json {
            print(try Self.document(entries.map { ($0.name, $0.json) }))
        } else {
            for entry in entries { print("== \(entry.name)\n\(entry.text)\n") }
        }
    }

    /// One login benchmark and the floor of `requests` requests measured in slices between
    /// its own.
    private func httpBenchmark(_ name: String, besideFloorOf requests: Int) async throws -> (Report, Report) {
        let rig = try await FloorRig.start(requests: requests, concurrency: load.concurrency)
        let report: Report
        do {
            report = try await HTTPBench.$alongside.withValue(rig) { try await httpBenchmark(name) }
        } catch {
            try? await rig.stop()
            throw error
        }
        try await rig.stop()
        guard let floor = rig.measured.withLock({ $0 }) else { throw BenchError("the floor of \(name) was not measured") }
        return (report, floor)
    }

    /// One login benchmark, with its latency at half its peak rate.
    private func httpBenchmark(_ name: String) async throws -> Report {
        let arguments = load.halfRate ? load.arguments : load.arguments + ["--half-rate"]
        switch name {
        case "otp-login": return try await OTPLoginBench.parse(arguments).measure()
        case "device-key": return try await DeviceKeyBench.parse(arguments).measure()
        default: return try await RefreshBench.parse(arguments).measure()
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
