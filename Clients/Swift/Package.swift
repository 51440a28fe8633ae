// swift-tools-version:6.0
import PackageDescription

// The Sesame client SDK for apps: sign-in by email or SMS code, magic link, device key and
// passkey against a Sesame server, with tokens kept in the Keychain. It depends on nothing but
// swift-crypto and Foundation, so an app that adds it resolves no server package; the server
// package in the repository root uses these same targets by path for its wire types.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "SesameSwift",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "SesameClient", targets: ["SesameClient"]),
        .library(name: "SesameClientCore", targets: ["SesameClientCore"]),
        .library(name: "SesameAPI", targets: ["SesameAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2")
    ],
    targets: [
        // The JSON bodies of Sesame's API, shared by the server and the apps.
        .target(name: "SesameAPI", exclude: ["README.md"], swiftSettings: swiftSettings),
        // The client whatever carries its requests; SesameClient adds URLSession (and
        // re-exports the core), so a command-line tool can use the core alone.
        .target(
            name: "SesameClientCore",
            dependencies: [
                "SesameAPI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SesameClient",
            dependencies: ["SesameClientCore"],
            exclude: ["README.md"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SesameClientCoreTests",
            dependencies: ["SesameClientCore", "SesameAPI"],
            swiftSettings: swiftSettings
        ),
    ]
)
