import ArgumentParser
import Foundation

/// `sesame-bench otp-login`: complete email-code logins over HTTP against a real server
/// process, reported against the RSA-2048 signing bound measured in the same run.
struct OTPLoginBench: LoadBenchmark {
    static let configuration = CommandConfiguration(
        commandName: "otp-login", abstract: "Complete email-code logins per second (start + read code + token).")

    @OptionGroup var load: LoadOptions

    /// The per-IP limits guard /passwordless/start and the open connections (64 by default);
    /// a benchmark from one IP raises them by configuration, the same way an operator would.
    /// Past 64 connections the server closed the newest at once, and a run at that concurrency
    /// failed or waited for ever.
    static let environment = [
        "SESAME_RATE_LIMIT_START_PER_IP": "100000000", "SESAME_RATE_LIMIT_START_PER_RECIPIENT": "100000000",
        "SESAME_HTTP_MAX_CONNECTIONS_PER_IP": "1000000",
    ]

    func measure() async throws -> Report {
        try await HTTPBench.measure(kind: "email-code", load) { target in
            let generator = LoadGenerator(bases: target.bases, clientID: target.clientID, codes: target.codes)
            let connections = try await target.connections(count: load.concurrency)
            return { worker, index in
                try await generator.login(
                    email: "bench-\(worker)-\(index)-\(UInt32.random(in: 0...UInt32.max))@example.com", route: worker + index,
                    client: connections[worker])
            }
        }
    }
}
