import Foundation
import Hummingbird
import NIOCore
import SesameCore

/// The hosted pages' stylesheet and scripts, served from this origin so the pages' policy
/// allows no other (no CDNs, no inline code).
struct AssetsController {
    let assets: PageAssets

    func register(on router: Router<SesameRequestContext>) {
        router.get("/assets/:name", use: asset)
        // The address of the passkey script before the pages moved to templates.
        router.get("/authorize/passkey.js") { _, _ in try self.response("passkey.js") }
    }

    @Sendable func asset(_ request: Request, context: SesameRequestContext) async throws -> Response {
        try response(context.parameters.get("name") ?? "")
    }

    private func response(_ name: String) throws -> Response {
        guard let asset = assets.files[name] else { throw SesameError(.notFound, .notFound, "No such asset.") }
        return Response(
            status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}

/// The files under `Resources/assets`, read once at start.
struct PageAssets: Sendable {
    struct File: Sendable {
        let contentType: String
        let bytes: [UInt8]
    }

    let files: [String: File]

    static func load() throws -> PageAssets {
        let directory = PageRenderer.bundled.appendingPathComponent("assets")
        var files: [String: File] = [:]
        for url in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil) {
            let type =
                switch url.pathExtension {
                case "css": "text/css; charset=utf-8"
                case "js": "text/javascript; charset=utf-8"
                case "svg": "image/svg+xml"
                default: "application/octet-stream"
                }
            files[url.lastPathComponent] = File(contentType: type, bytes: Array(try Data(contentsOf: url)))
        }
        return PageAssets(files: files)
    }
}
