import ArgumentParser
import Foundation

/// `sesame-bench otp-login`: complete email-code logins over HTTP against a real server
/// process, reported against the RSA-2048 signing bound measured in the same run.
struct OTPLoginBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "otp-login", abstract: "Complete email-code logins per second (start + read code + token).")

    @Option(help: "Seconds of load.") var duration = 10
    @Option(help: "Logins in flight at once.") var concurrency = 32
    @OptionGroup var target: TargetOptions
    @Flag(help: "Print one JSON object.") var json = false

    /// The per-IP limit guards /passwordless/start; a benchmark from one IP raises it by
    /// configuration, the same way an operator would.
    static let environment = [
        "SESAME_RATE_LIMIT_START_PER_IP": "100000000", "SESAME_RATE_LIMIT_START_PER_RECIPIENT": "100000000",
    ]

    func run() async throws {
        var report = Report(
            rsa2048SignsPerSecond: try await CryptoBound.rsa2048SignsPerSecond(), concurrency: concurrency,
            duration: duration)
        let target = try await BenchTarget.start(
            self.target, environment: Self.environment, concurrency: concurrency, report: &report)
        do {
            let generator = { (seconds: Int) in
                LoadGenerator(
                    bases: target.bases, clientID: target.clientID, outbox: target.database, concurrency: concurrency,
                    duration: .seconds(seconds))
            }
            _ = try await generator(1).run(client: target.client)  // warm-up: connections, caches
            report.record(try await generator(duration).run(client: target.client))
        } catch {
            try? await target.stop(removeDirectory: self.target.ownsDirectory)
            throw error
        }
        try await target.stop(removeDirectory: self.target.ownsDirectory)
        print(json ? try report.json() : report.text)
    }
}
