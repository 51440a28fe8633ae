// swift-tools-version:6.0
import PackageDescription

// The sample app's code as a package, so scripts/check-apple can build it for iOS; the app
// itself is an Xcode iOS app target holding App/ (README.md says how).
let package = Package(
    name: "SesameDemo",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [.library(name: "SesameDemo", targets: ["SesameDemo"])],
    dependencies: [.package(path: "../../Clients/Swift")],
    targets: [
        .target(name: "SesameDemo", dependencies: [.product(name: "SesameClient", package: "Swift")])
    ]
)
