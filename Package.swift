// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// How a release `sesame` is linked on Linux, so an idle server maps little of its own code
/// (docs/performance.md, "Memory"): LLVM's lld (part of every Swift toolchain for Linux)
/// places the functions that starting and serving run first and together
/// (Sources/sesame/link-order.txt, written by scripts/link-order) and the compiler's unnamed
/// functions beside them (text-layout.ld), and exports no symbols the server does not need:
/// the static Swift runtime's link arguments export every symbol, a 2 MB table the loader
/// reads at each start. The layout takes function by function when the build compiles one
/// section per function (scripts/release: `-function-sections`), file by file otherwise.
let sesameDirectory = String(#filePath.dropLast("/Package.swift".count)) + "/Sources/sesame"
let releaseLayout: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-use-ld=lld",
            "-Xlinker", "--no-export-dynamic",
            "-Xlinker", "--symbol-ordering-file=\(sesameDirectory)/link-order.txt",
            "-Xlinker", "--no-warn-symbol-ordering",
            "-Xlinker", "--script=\(sesameDirectory)/text-layout.ld",
        ], .when(platforms: [.linux], configuration: .release))
]

/// The client SDK's targets, from the package in Clients/Swift (its folder name is its identity).
let sesameAPI: Target.Dependency = .product(name: "SesameAPI", package: "Swift")
let sesameClientCore: Target.Dependency = .product(name: "SesameClientCore", package: "Swift")
let sesameClient: Target.Dependency = .product(name: "SesameClient", package: "Swift")

let package = Package(
    name: "Sesame",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "sesame", targets: ["sesame"]),
        .executable(name: "sesame-bench", targets: ["sesame-bench"]),
        .executable(name: "sesame-fuzz", targets: ["sesame-fuzz"]),
        .library(name: "SesameCore", targets: ["SesameCore"]),
        .library(name: "SesameSoftwareAuthenticator", targets: ["SesameSoftwareAuthenticator"]),
        .library(name: "SesameWebAuthn", targets: ["SesameWebAuthn"]),
        .library(name: "SesameDelivery", targets: ["SesameDelivery"]),
        .library(name: "SesameStorageSQL", targets: ["SesameStorageSQL"]),
        .library(name: "SesameStorageConformance", targets: ["SesameStorageConformance"]),
        .library(name: "SesameServer", targets: ["SesameServer"]),
    ],
    dependencies: [
        // The client SDK and the wire types, a package of their own so apps resolve none of
        // the server's packages (Clients/Swift/Package.swift).
        .package(path: "Clients/Swift"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "SesameWebAuthn",
            dependencies: [
                sesameAPI,
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            exclude: ["Documentation.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SesameCore",
            dependencies: [
                "SesameWebAuthn", sesameAPI,
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SesameStorageSQL",
            dependencies: [
                "SesameCore", "SesameWebAuthn",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SesameStorageConformance",
            dependencies: ["SesameCore", "SesameWebAuthn"],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SesameDelivery",
            dependencies: [
                "SesameCore", sesameAPI, "SesameParsers",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        // The parsers of untrusted text that the fuzzer drives (request bodies, SMTP replies,
        // message templates, languages, log searches, request ids), apart from the server, so
        // the sanitizer build of sesame-fuzz compiles no HTTP or database stack.
        .target(
            name: "SesameParsers",
            dependencies: [
                "SesameCore", sesameAPI, "SesameWebAuthn",
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        // A passkey authenticator in software, for tests, headless clients and the CLI.
        .target(
            name: "SesameSoftwareAuthenticator",
            dependencies: [sesameClientCore, sesameAPI, .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SesameServer",
            dependencies: [
                "SesameCore", sesameAPI, "SesameStorageSQL", "SesameDelivery", "SesameWebAuthn", "SesameParsers",
                .product(name: "Hummingbird", package: "hummingbird"),
                // Export files are gzip, as Auth0's (GzipWriter).
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            exclude: ["README.md"],
            // The hosted pages' templates, language files, stylesheet and scripts.
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SesameCLI",
            dependencies: [
                sesameClientCore, "SesameSoftwareAuthenticator",
                "SesameServer", sesameAPI, "SesameWebAuthn",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "sesame",
            dependencies: ["SesameCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            exclude: ["README.md", "link-order.txt", "text-layout.ld"],
            swiftSettings: swiftSettings,
            linkerSettings: releaseLayout
        ),
        .executableTarget(
            name: "sesame-bench",
            dependencies: [
                "SesameServer", "SesameStorageSQL", "SesameWebAuthn", sesameAPI,
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        // libFuzzer targets for the parsers (docs/fuzzing.md); scripts/fuzz builds them with -DFUZZING.
        .executableTarget(
            name: "sesame-fuzz",
            dependencies: ["SesameWebAuthn", "SesameCore", "SesameParsers"],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SesameWebAuthnTesting",
            dependencies: [
                "SesameWebAuthn",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Tests/SesameWebAuthnTesting",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SesameWebAuthnTests",
            dependencies: [
                "SesameWebAuthn", "SesameWebAuthnTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SesameClientTests",
            dependencies: [
                sesameClient, sesameClientCore, "SesameSoftwareAuthenticator", sesameAPI, "SesameServer",
                "SesameCore", "SesameStorageSQL",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SesameCoreTests",
            dependencies: [
                "SesameCore", sesameAPI, "SesameStorageSQL", "SesameStorageConformance", "SesameWebAuthn",
                "SesameWebAuthnTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SesameStorageSQLTests",
            dependencies: [
                "SesameStorageSQL", "SesameStorageConformance", .product(name: "SQLiteNIO", package: "sqlite-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SesameServerTests",
            dependencies: [
                "SesameServer", "SesameStorageConformance", "SesameWebAuthnTesting", "SesameWebAuthn", sesameAPI,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SesameDeliveryTests",
            dependencies: [
                "SesameDelivery", "SesameCore", sesameAPI,
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SesameCLITests",
            dependencies: [
                "SesameCLI", "SesameWebAuthn", "SesameWebAuthnTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings),
    ]
)
