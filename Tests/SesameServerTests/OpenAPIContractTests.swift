import Foundation
import Hummingbird
import SesameServer
import Testing

/// The OpenAPI document (`/openapi.json`) describes every route the router serves, and no
/// route that does not exist: clients generated from it call what is there.
@Suite("OpenAPI contract: the document and the router agree")
struct OpenAPIContractTests {
    /// `GET /api/v2/users/{id}` for every operation of the shipped document.
    static func documented() throws -> Set<String> {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/SesameServer/Resources/openapi.json")
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        let paths = try #require(document?["paths"] as? [String: [String: Any]])
        let methods: Set<String> = ["get", "post", "put", "patch", "delete", "head", "options"]
        return Set(
            paths.flatMap { path, item in
                item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
            })
    }

    @Test("every registered route is documented, and every documented operation is registered")
    func routesMatch() async throws {
        try await Harness.run { h in
            let router = buildRouter(h.sesame, proxies: .none)
            let registered = Set(
                router.routes.map { route in
                    let path = route.path.description.split(separator: "/").map { segment in
                        segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
                    }
                    return "\(route.method) /" + path.joined(separator: "/")
                })
            let documented = try Self.documented()
            #expect(registered.subtracting(documented).sorted() == [], "routes the document lacks")
            #expect(documented.subtracting(registered).sorted() == [], "documented operations no route serves")
            #expect(registered.count > 50)
        }
    }
}
