#if canImport(Glibc)
    import Glibc
#endif

/// The local time zone, read once per process.
///
/// The text log handler stamps every line with `localtime(3)`. With `TZ` unset, glibc checks
/// /etc/localtime with a `stat(2)` on every call to see whether it changed: one system call per
/// log line, so per request (docs/performance.md). Naming the file in `TZ` makes glibc read it
/// once. Foundation's `TimeZone.current` resolves the same file, so nothing else changes; a
/// server started after the machine's zone changes picks up the new one.
public enum LocalTimeZone {
    /// Pins the zone; call once, before serving. An operator's own `TZ` is left alone.
    public static func pin() {
        #if canImport(Glibc)
            guard getenv("TZ") == nil else { return }
            setenv("TZ", ":/etc/localtime", 0)
            tzset()
        #endif
    }
}
