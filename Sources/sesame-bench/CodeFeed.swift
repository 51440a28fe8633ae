import Foundation
import SesameCore
import SesameStorageSQL
import Synchronization

/// Codes from the console outbox for the load generator's logins: one task follows the
/// outbox (a read each millisecond, whatever the concurrency) and hands each code to the
/// login waiting for it. Polling per login instead made the generator's own CPU grow with
/// the concurrency and take the cores from the server it measures.
final class CodeFeed: Sendable {
    private struct State {
        var codes: [String: String] = [:]
        var waiting: [String: CheckedContinuation<String?, Never>] = [:]
    }

    /// Shared by the follower task and the waiting logins.
    private final class Shared: Sendable {
        let state = Mutex(State())
    }

    private let shared = Shared()
    private let follower: Task<Void, Never>

    /// Starts following `outbox` from its newest message on.
    init(outbox: SQLStorage) async throws {
        let start = try await outbox.outboxMessages(after: nil, limit: 1).cursor
        let shared = self.shared
        follower = Task {
            var cursor = start
            while !Task.isCancelled {
                guard let page = try? await outbox.outboxMessages(after: cursor, limit: 500) else { continue }
                cursor = page.cursor
                for message in page.messages {
                    guard let code = message.code else { continue }
                    let waiter = shared.state.withLock { state in
                        guard let waiter = state.waiting.removeValue(forKey: message.recipient) else {
                            state.codes[message.recipient] = code
                            return nil as CheckedContinuation<String?, Never>?
                        }
                        return waiter
                    }
                    waiter?.resume(returning: code)
                }
                if page.messages.count < 500 { try? await Task.sleep(for: .milliseconds(1)) }
            }
        }
    }

    deinit { follower.cancel() }

    /// The code sent to `recipient`, waiting up to `timeout` for it to arrive.
    func code(for recipient: String, timeout: Duration = .seconds(2)) async -> String? {
        let timer = Task { [shared] in
            try? await Task.sleep(for: timeout)
            shared.state.withLock { $0.waiting.removeValue(forKey: recipient) }?.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let arrived = shared.state.withLock { state in
                guard let code = state.codes.removeValue(forKey: recipient) else {
                    state.waiting[recipient] = continuation
                    return nil as String?
                }
                return code
            }
            if let arrived { continuation.resume(returning: arrived) }
        }
    }
}
