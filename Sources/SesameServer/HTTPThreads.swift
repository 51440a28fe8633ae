import NIOCore
import NIOPosix
import Synchronization

/// The event loops that carry the HTTP connections. By default they take half the cores: a
/// login is mostly one RSA signature, computed by a handler on Swift's task pool, and an
/// event loop on every core as well left more threads than cores, whose switching cost the
/// signatures time (device-key logins rose 10 % and refresh grants 6 % on two cores with one
/// loop instead of two; docs/performance.md).
enum HTTPThreads {
    private static let groups = Mutex<[Int: MultiThreadedEventLoopGroup]>([:])

    /// The shared group of `count` threads (nil: half the cores, at least one), made once per
    /// size and kept for the life of the process, as NIO's own singleton is.
    static func group(_ count: Int?) -> MultiThreadedEventLoopGroup {
        let threads = count ?? max(1, System.coreCount / 2)
        return groups.withLock { groups in
            if let group = groups[threads] { return group }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            groups[threads] = group
            return group
        }
    }
}
