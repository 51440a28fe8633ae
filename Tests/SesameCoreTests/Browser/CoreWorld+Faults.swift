import Foundation
import SQLKit
import SesameCore
import Testing

@testable import SesameStorageSQL

extension CoreWorld {
    /// Runs `body` while every `event` (`UPDATE ON link_requests`) fails as a database going away would.
    func databaseAway(on event: String, _ body: () async throws -> Void) async throws {
        let storage = try #require(sesame.storage as? SQLStorage)
        try await storage.executor.write { db in
            try await db.raw(
                """
                CREATE TRIGGER database_away BEFORE \(unsafeRaw: event)
                BEGIN SELECT RAISE(ABORT, 'terminating connection due to administrator command'); END
                """
            ).run()
        }
        try await body()
        try await storage.executor.write { db in try await db.raw("DROP TRIGGER database_away").run() }
    }
}
