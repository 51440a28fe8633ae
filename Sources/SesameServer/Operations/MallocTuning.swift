#if canImport(Glibc)
    import Glibc
#endif

/// glibc's allocator settings for a long-running server.
///
/// By default glibc hands freed memory back to the kernel as soon as 128 KB sit free at the
/// top of a heap, and asks for it again on the next request: under load every request paid
/// for `brk`/`madvise` calls, page faults and the TLB flushes they cause on other cores
/// (docs/performance.md). Keeping up to 64 MB and growing a heap 8 MB at a time ends that
/// churn; an idle server's memory is unchanged, since only memory once used is kept.
public enum MallocTuning {
    /// Applies the settings to this process; call once, before serving. Does nothing where
    /// the C library is not glibc.
    public static func apply() {
        #if canImport(Glibc)
            // malloc.h is not part of the Glibc module, so mallopt is looked up by name.
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            _ = mallopt(trimThreshold, 64 << 20)
            _ = mallopt(topPad, 8 << 20)
        #endif
    }

    /// `M_TRIM_THRESHOLD` and `M_TOP_PAD` of malloc.h.
    private static let trimThreshold: Int32 = -1
    private static let topPad: Int32 = -2
}
