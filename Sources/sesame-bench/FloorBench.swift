import ArgumentParser
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix
import SesameAPI
import SesameCore
import SesameServer
import Synchronization

/// `sesame-bench floor`: the most logins per second this machine, this HTTP stack and this
/// load generator allow, whatever Sesame does. A server process that only answers HTTP (on
/// Sesame's Hummingbird and thread layout) and signs one id_token per login is driven the way
/// the login benchmarks drive `sesame serve`, and reported against the signing bound measured
/// in the same run. A budget above this ratio cannot be met by any change to Sesame's own work
/// (storage, JSON, delivery); only by a cheaper HTTP stack, generator or machine.
struct FloorBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor",
        abstract: "The ceiling of HTTP plus one RSA signature per login, with nothing of Sesame's own work.")

    @Option(help: "Seconds of load.") var duration = 10
    @Option(help: "Logins in flight at once.") var concurrency = 32
    @Option(help: "HTTP requests per login; the last one signs (an email-code login makes 3, a refresh grant 1).")
    var requests = 1
    @Option(help: "The server's HTTP stack: hummingbird (Sesame's) or nio (bare SwiftNIO, signing on the event loops).")
    var stack = FloorStack.hummingbird
    @Flag(help: "Print one JSON object.") var json = false

    func validate() throws {
        guard requests >= 1 else { throw ValidationError("--requests must be at least 1") }
    }

    func run() async throws {
        let report = try await measure()
        print(json ? try report.json() : report.text)
    }

    func measure() async throws -> Report {
        MallocTuning.apply()
        let bound = try await CryptoBound.rsa2048SignsPerSecond()
        let rig = try await FloorRig.start(requests: requests, concurrency: concurrency, stack: stack)
        var report = rig.report(bound: bound, concurrency: concurrency, duration: duration)
        do {
            try await HTTPBench.run(
                rig.operation, concurrency: concurrency, seconds: duration, on: rig.executor, servers: [rig.server],
                into: &report)
        } catch {
            try? await rig.stop()
            throw error
        }
        try await rig.stop()
        return report
    }
}

/// A running floor server with the generator's connections to it, and the operation that
/// drives it: `floor` measures it alone, and `all` in slices between a login benchmark's
/// (``HTTPBench/alongside``).
final class FloorRig: Sendable {
    let server: ServerProcess
    let executor: LoopExecutor
    let operation: HTTPBench.Operation
    let requests: Int
    let stack: FloorStack
    /// The floor's figures, once a login benchmark has measured it in slices between its own.
    let measured = Mutex<Report?>(nil)

    private init(
        server: ServerProcess, executor: LoopExecutor, operation: @escaping HTTPBench.Operation, requests: Int,
        stack: FloorStack
    ) {
        (self.server, self.executor, self.operation) = (server, executor, operation)
        (self.requests, self.stack) = (requests, stack)
    }

    /// A report of this floor, its figures still to be recorded.
    func report(bound: Double, concurrency: Int, duration: Int) -> Report {
        var report = Report(rsa2048SignsPerSecond: bound, concurrency: concurrency, duration: duration)
        report.kind = "floor (\(requests) HTTP request\(requests == 1 ? "" : "s"), 1 signature)"
        report.database = "none"
        report.server = "sesame-bench floor-server --stack \(stack.rawValue)"
        return report
    }

    /// Starts the server and opens `concurrency` connections to it.
    /// - Parameter requests: HTTP requests a login; the last one signs.
    static func start(requests: Int, concurrency: Int, stack: FloorStack = .hummingbird) async throws -> FloorRig {
        let server = try await ServerProcess(
            executable: ServerProcess.benchExecutable.path, arguments: ["floor-server", "--stack", stack.rawValue],
            environment: [:])
        let executor = LoopExecutor()
        do {
            let base = "http://127.0.0.1:\(server.port)"
            var connections: [BenchConnections] = []
            for _ in 0..<concurrency { connections.append(try await BenchConnections(bases: [base], loop: executor.loop)) }
            let pool = connections
            // Every request carries a body the size of an email-code login's start.
            let start = BenchHTTP.json([
                "client_id": "0123456789abcdef0123456789abcdef", "connection": "email",
                "email": "bench-0-0-0123456789@example.com", "send": "code",
            ])
            let operation: HTTPBench.Operation = { worker, _ in
                for _ in 1..<requests {
                    guard try await pool[worker].send(base + "/noop", body: start, headers: []).status == .ok else {
                        return false
                    }
                }
                return try await pool[worker].send(base + "/sign", body: start, headers: []).status == .ok
            }
            return FloorRig(server: server, executor: executor, operation: operation, requests: requests, stack: stack)
        } catch {
            server.stop()
            try? await executor.shutdown()
            throw error
        }
    }

    /// Stops the server and the generator's loop.
    func stop() async throws {
        server.stop()
        try await executor.shutdown()
    }
}

/// The HTTP stack of the floor server.
enum FloorStack: String, ExpressibleByArgument, Sendable {
    case hummingbird, nio
}

/// The server `floor` drives: Hummingbird on as many event loops as `sesame serve` uses by
/// default (half the cores), answering `/noop` with a small JSON object and `/sign` with an
/// id_token signed by ``TokenSigner``, as the token endpoint signs it. Each reads its body.
struct FloorServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floor-server", abstract: "The server `floor` drives.", shouldDisplay: false)

    @Option var port = 0
    @Option var stack = FloorStack.hummingbird

    func run() async throws {
        MallocTuning.apply()
        if stack == .nio { return try await FloorNIOServer.run(port: port) }
        let now = Date()
        let signer = try await TokenSigner(records: [TokenSigner.generateKey(at: now)], at: now)
        let router = Router()
        router.get("/health") { _, _ in HTTPResponse.Status.ok }
        router.post("/noop") { request, _ in
            _ = try await request.body.collect(upTo: 1 << 16)
            return Self.json(#"{"ok":true}"#)
        }
        router.post("/sign") { request, _ in
            _ = try await request.body.collect(upTo: 1 << 16)
            return Self.json(#"{"id_token":""# + (try await signer.sign(Self.claims())) + #"","token_type":"Bearer"}"#)
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "Sesame"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                FileHandle.standardOutput.write(Data("floor server listening on 127.0.0.1:\(port)\n".utf8))
            },
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup(numberOfThreads: max(1, System.coreCount / 2))))
        try await app.runService()
    }

    /// Claims of the size and shape of an email-code login's id_token.
    static func claims() -> IDTokenClaims {
        let now = Int64(Date().timeIntervalSince1970)
        return IDTokenClaims(
            iss: "http://127.0.0.1:3000/", aud: "0123456789abcdef0123456789abcdef", iat: now, exp: now + 36_000,
            authTime: now, nonce: nil,
            profile: UserInfo(
                sub: "email|0123456789abcdef01234567", name: "bench-0-0-0123456789@example.com", nickname: "bench-0-0-0123456789",
                updatedAt: "2026-11-28T00:00:00.000Z", email: "bench-0-0-0123456789@example.com", emailVerified: true))
    }

    private static func json(_ text: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
