import Foundation

/// Finds and loads the shared WebAuthn conformance corpus, `<package root>/../shared/conformance/webauthn/vectors.json`.
///
/// The corpus is data owned by another folder and is never copied into this package. It is found
/// through `SESAME_SHARED_DIR` (the `shared` directory) or by walking up from this file, with
/// symlinks resolved so that a dev package that links this folder still finds it.
enum ConformanceCorpus {
    static let relativePath = "conformance/webauthn/vectors.json"

    /// The corpus location, or `nil` when it is absent.
    static let url: URL? = locate()

    /// All cases, or an empty list when the corpus is absent.
    static let cases: [ConformanceCase] = load()

    private static func locate(filePath: String = #filePath) -> URL? {
        let fileManager = FileManager.default
        if let shared = ProcessInfo.processInfo.environment["SESAME_SHARED_DIR"] {
            let candidate = URL(fileURLWithPath: shared).appendingPathComponent(relativePath)
            if fileManager.fileExists(atPath: candidate.path) { return candidate }
        }
        let starts = [URL(fileURLWithPath: filePath), URL(fileURLWithPath: filePath).resolvingSymlinksInPath()]
        for start in starts {
            var directory = start.deletingLastPathComponent()
            while directory.path != "/" {
                let candidate = directory.appendingPathComponent("../shared/\(relativePath)").standardizedFileURL
                if fileManager.fileExists(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent().resolvingSymlinksInPath()
            }
        }
        return nil
    }

    private static func load() -> [ConformanceCase] {
        guard let url, let data = try? Data(contentsOf: url) else { return [] }
        do {
            return try JSONDecoder().decode(CorpusFile.self, from: data).cases
        } catch {
            print("⚠️ could not decode \(url.path): \(error)")
            return []
        }
    }

    private struct CorpusFile: Decodable {
        let cases: [ConformanceCase]
    }
}
