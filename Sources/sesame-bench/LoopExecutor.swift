import NIOCore
import NIOPosix

/// Runs the load generator's tasks on the one event loop its HTTP connections use. The
/// generator shares the cores with the server it measures: with its tasks on Swift's pool and
/// its sockets on another thread, every request woke two of its threads, and the switches
/// cost it a fifth of a core that the server then lacked.
final class LoopExecutor: TaskExecutor {
    /// A group of one thread: every connection and every worker task lives on it.
    let group: MultiThreadedEventLoopGroup
    /// The group's one loop.
    let loop: any EventLoop

    init() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        loop.execute { job.runSynchronously(on: executor) }
    }

    /// Waits `amount` on the loop's own timer, without a thread of Swift's pool or a
    /// dispatch timer; returns at once once the loop has shut down.
    func sleep(_ amount: TimeAmount) async {
        _ = try? await loop.scheduleTask(in: amount) {}.futureResult.get()
    }

    /// Stops the thread once the connections on it are closed.
    func shutdown() async throws { try await group.shutdownGracefully() }
}
