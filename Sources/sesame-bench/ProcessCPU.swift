import Foundation

/// CPU time of processes over a measured run, from Linux's /proc: the load generator shares
/// the cores with the servers, so its own use is reported beside every figure.
struct CPUWatch {
    private let serverIDs: [Int32]
    private let started: ContinuousClock.Instant
    private let generatorStart: Double
    private let serverStart: Double

    /// Starts watching this process and the servers `serverIDs`.
    init(serverIDs: [Int32]) {
        self.serverIDs = serverIDs
        started = .now
        generatorStart = Self.seconds("self")
        serverStart = serverIDs.map { Self.seconds(String($0)) }.reduce(0, +)
    }

    /// CPU seconds used since the start by this process and by all the servers, and the
    /// seconds elapsed (summed over the slices of a run measured in slices).
    func finishSeconds() -> (generator: Double, servers: Double, elapsed: Double) {
        let servers = serverIDs.map { Self.seconds(String($0)) }.reduce(0, +)
        return (Self.seconds("self") - generatorStart, servers - serverStart, (ContinuousClock.now - started).seconds)
    }

    /// User plus system CPU seconds of a process (0 when /proc cannot tell).
    static func seconds(_ process: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(process)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        // The command may hold spaces, so count from its closing parenthesis: the state is
        // field 3, utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
