import Foundation
import Glibc
import NIOCore
import NIOPosix

/// A test failure with a message meant for whoever reads the test log.
struct TestSetupError: Error, CustomStringConvertible {
    var description: String
}

/// The helper servers in Tests/e2e, run as real subprocesses on 127.0.0.1.
enum TestServers {
    /// Tests/e2e, found from this file so tests work from any working directory.
    static let e2eDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // SesameDeliveryTests
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("e2e")

    /// How long a helper may take to listen: generous, because with every suite running at
    /// once on a 2-core CI machine a test's task can wait seconds for each turn on a thread.
    static let readyTimeout: Duration = .seconds(120)

    /// Fails (never skips) when aiosmtpd is missing, saying how to install it.
    static func requireAiosmtpd() throws {
        guard aiosmtpdImports else {
            throw TestSetupError(
                description: """
                    The SMTP integration tests need the Python package aiosmtpd, which python3 cannot import. \
                    Install it with: pip install -r Tests/e2e/requirements.txt
                    """)
        }
    }

    /// Whether python3 can import aiosmtpd, asked once: the answer cannot change during a run,
    /// and each ask holds a thread of the cooperative pool until Python has started.
    private static let aiosmtpdImports: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import aiosmtpd"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Runs `body` with a port on 127.0.0.1 where nothing listens, and that nothing can take
    /// meanwhile: a socket holds it bound without listening, so a connection is refused. A
    /// port merely found free could be bound by a test server running alongside, and then a
    /// "nothing listening" test would talk to that server instead.
    @discardableResult
    static func withRefusingPort<Result>(_ body: (Int) async throws -> Result) async throws -> Result {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestSetupError(description: "socket: errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Glibc.bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        guard bound else { throw TestSetupError(description: "bind: errno \(errno)") }
        return try await body(Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A fresh scratch directory under the system temporary directory.
    static func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-delivery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `python3 Tests/e2e/<script> --port 0 <arguments>`, waits until the script says
    /// which port it listens on, runs `body` with that port, and always terminates the process
    /// afterwards.
    ///
    /// The script binds the port itself and announces it only once it listens, so there is no
    /// window in which another test could take a port found free, and readiness is a line in a
    /// file rather than connection attempts whose own timeouts a starved event loop can miss.
    @discardableResult
    static func withPythonServer<Result>(
        _ script: String,
        arguments: [String],
        logDirectory: URL,
        _ body: (Int) async throws -> Result
    ) async throws -> Result {
        let log = logDirectory.appendingPathComponent("\(script).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", e2eDirectory.appendingPathComponent(script).path, "--port", "0"] + arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer { stop(process) }
        let port = try await announcedPort(process: process, log: log)
        return try await body(port)
    }

    /// SIGTERM so the server can flush its files, SIGKILL after a bounded grace period.
    private static func stop(_ process: Process) {
        if process.isRunning { process.terminate() }
        var waited = 0
        while process.isRunning && waited < 50 {
            usleep(100_000)
            waited += 1
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Polls `log` until the helper writes "listening on 127.0.0.1:PORT", with a bounded wait.
    /// It reads once more after every sleep before it looks at the clock: on a busy machine
    /// the sleep itself can outlast the deadline, and a server that is up by then is not a
    /// failure.
    private static func announcedPort(process: Process, log: URL) async throws -> Int {
        let deadline = ContinuousClock.now + readyTimeout
        while true {
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let port = listeningPort(in: output) { return port }
            guard process.isRunning else {
                throw TestSetupError(description: "helper server exited early (\(process.terminationStatus)):\n\(output)")
            }
            guard ContinuousClock.now < deadline else {
                throw TestSetupError(description: "helper server did not listen within \(readyTimeout):\n\(output)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The port in a helper's "listening on 127.0.0.1:PORT" line, if it has written it.
    private static func listeningPort(in output: String) -> Int? {
        guard let range = output.range(of: "listening on 127.0.0.1:") else { return nil }
        let digits = output[range.upperBound...].prefix { $0.isNumber }
        // The line is complete only once its newline is written; a bare prefix may be cut short.
        guard output[range.upperBound...].dropFirst(digits.count).first == "\n" else { return nil }
        return Int(digits)
    }

    /// Every JSON line written to `file` so far.
    static func readJSONLines(_ file: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: file, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestSetupError(description: "not a JSON object: \(line)")
            }
            return object
        }
    }

    /// A TCP server that accepts connections and never says anything: for timeout tests.
    @discardableResult
    static func withSilentServer<Result>(_ body: (Int) async throws -> Result) async throws -> Result {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { $0.eventLoop.makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = server.localAddress?.port else { throw TestSetupError(description: "silent server has no port") }
        do {
            let result = try await body(port)
            try? await server.close()
            return result
        } catch {
            try? await server.close()
            throw error
        }
    }
}
