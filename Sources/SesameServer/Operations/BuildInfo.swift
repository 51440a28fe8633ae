/// The version and commit this binary was built from, for `sesame --version`,
/// `/health/ready` and the `sesame_build_info` metric.
///
/// ``sourceVersion`` is the one place the version is written (CHANGELOG.md has an entry for
/// it). A development build reports it with `-dev` and no commit. `scripts/release` compiles
/// with `SESAME_RELEASE_STAMP` defined and writes `ReleaseStamp.generated.swift` beside this
/// file: the tag's version (`v1.2.3` → `1.2.3`) when HEAD is tagged, and the commit.
public enum BuildInfo {
    /// The version of this source tree: the release it is, or the next one it will be.
    public static let sourceVersion = "1.0.0"

    /// A semantic version: the release's, or ``sourceVersion`` with `-dev`.
    public static var version: String { releaseStamp?.version ?? sourceVersion + "-dev" }

    /// The commit the release was built from; `unknown` for a development build.
    public static var commit: String { releaseStamp?.commit ?? "unknown" }

    /// What `sesame --version` prints.
    public static var description: String { "\(version) (commit \(commit))" }
}

#if !SESAME_RELEASE_STAMP
    extension BuildInfo {
        /// Set by `scripts/release` only (see the type's documentation).
        static let releaseStamp: (version: String, commit: String)? = nil
    }
#endif
