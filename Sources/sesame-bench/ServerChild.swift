import ArgumentParser
import Foundation
import Hummingbird
import Logging
import SesameServer

/// Runs the server exactly as `sesame serve` does (same runtime, same application), for
/// when the `sesame` executable is not built next to the benchmark.
struct ServerChild: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server", abstract: "Run a server the way `sesame serve` does.", shouldDisplay: false)

    @Option var dataDir: String
    @Option var port = 0

    func run() async throws {
        MallocTuning.apply()
        var logger = Logger(label: "sesame")
        logger.logLevel = .warning
        let flags = ["data_dir": dataDir, "port": String(port)]
        let environment = ProcessInfo.processInfo.environment
        let local = try await ServerConfiguration.load(flags: flags, environment: environment)
        let runtime = try await SesameRuntime.start(
            local,
            withStored: {
                try await ServerConfiguration.load(flags: flags, environment: environment, stored: $0)
            }, logger: logger)
        let app = buildApplication(runtime) { port in
            FileHandle.standardOutput.write(Data("Sesame is listening on 127.0.0.1:\(port)\n".utf8))
        }
        try await app.runService()
    }
}
