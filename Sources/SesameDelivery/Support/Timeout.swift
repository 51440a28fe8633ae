import SesameCore

/// Runs `body`, abandoning it with `error` once `timeout` has passed.
///
/// Cancelling `body` is what unblocks it: NIO's async channel streams and AsyncHTTPClient
/// both end their waits on task cancellation, and the connection is then closed.
func withTimeout<Result: Sendable>(
    _ timeout: Duration,
    error: @escaping @Sendable () -> DeliveryError,
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withDeadline(timeout, timeoutError: error, body)
}
