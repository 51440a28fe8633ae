import Foundation

/// `sesame-fuzz`: under `-DFUZZING` (scripts/fuzz) the libFuzzer driver; in a plain build a
/// replayer of corpus files and directories through the same harness.
///
/// Both builds have a Swift `main`: SwiftPM links every executable with `main` renamed from
/// `sesame_fuzz_main`, so libFuzzer's own `main` cannot be used and its driver is called instead.
@main
enum SesameFuzz {
    static func main() {
        do {
            let target = try FuzzTarget.fromEnvironment()
            #if FUZZING
                selectedTarget = target
                var argc = CommandLine.argc
                var argv = CommandLine.unsafeArgv
                exit(runFuzzerDriver(&argc, &argv, fuzzTestOneInput))
            #else
                try replay(target, paths: Array(CommandLine.arguments.dropFirst()))
            #endif
        } catch {
            FileHandle.standardError.write(Data("sesame-fuzz: \(error)\n".utf8))
            exit(2)
        }
    }
}

#if FUZZING
    /// The target, set once before the driver starts calling ``fuzzTestOneInput(_:_:)``.
    nonisolated(unsafe) private var selectedTarget = FuzzTarget.cbor

    /// libFuzzer's per-input callback.
    @_cdecl("LLVMFuzzerTestOneInput")
    func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        selectedTarget.run(Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    /// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*)(const uint8_t *, size_t))` from
    /// libFuzzer (linked by `-sanitize=fuzzer`); declared here because it has no Swift module.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#else
    extension SesameFuzz {
        /// Runs every file in `paths` through `target`. A crashing input crashes this process
        /// too, with a readable stack trace and without sanitizer overhead.
        static func replay(_ target: FuzzTarget, paths: [String]) throws(UsageError) {
            guard !paths.isEmpty else {
                throw UsageError("usage: \(FuzzTarget.environmentVariable)=<target> sesame-fuzz <file or directory>...")
            }
            var count = 0
            for path in paths {
                for file in try inputFiles(path) {
                    guard let bytes = FileManager.default.contents(atPath: file) else { throw UsageError("cannot read \(file)") }
                    target.run(Array(bytes))
                    count += 1
                }
            }
            print("sesame-fuzz: \(target.rawValue): replayed \(count) inputs without a crash")
        }

        /// `path` itself, or the files directly inside it when it is a directory (a libFuzzer
        /// corpus is flat).
        private static func inputFiles(_ path: String) throws(UsageError) -> [String] {
            switch isDirectory(path) {
            case nil: throw UsageError("no such file or directory: \(path)")
            case false: return [path]
            case true:
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
                    throw UsageError("cannot list \(path)")
                }
                return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(path)/\($0)" }.filter { isDirectory($0) == false }
            }
        }

        /// Whether `path` is a directory, or nil when nothing is there.
        private static func isDirectory(_ path: String) -> Bool? {
            var directory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &directory) else { return nil }
            return directory.boolValue
        }
    }
#endif
