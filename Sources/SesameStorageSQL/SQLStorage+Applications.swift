import Foundation
import SQLKit
public import SesameCore

/// The list-valued settings of an application, kept as one JSON column so new settings
/// need no schema change.
private struct ApplicationOptions: Codable {
    var callbacks: [String]
    var allowedOrigins: [String]
    var grantTypes: [String]
    var iosBundleIDs: [String]?
    var androidPackages: [String]?
    var iosTeamID: String?
    var androidFingerprints: [String]?
    var deviceKeyNonceRequired: Bool?
    var logoutURLs: [String]?
    var logoURL: String?
    var brandColor: BrandColor?
    var authMethod: TokenEndpointAuthMethod?
    var backchannelLogoutURI: String?
    var frontchannelLogoutURI: String?
}

extension SQLStorage: ApplicationRepository {
    public func createApplication(_ application: Application) async throws {
        let options = try Self.options(of: application)
        let secret = try application.clientSecret.map { try sealed($0, SealedColumn.clientSecret) }
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO applications (client_id, client_secret, name, type, is_default, options, created_at)
                VALUES (\(bind: application.clientID), \(bind: secret), \(bind: application.name),
                \(bind: application.type.rawValue), \(bind: application.isDefault.sqlValue), \(bind: options),
                \(bind: application.createdAt.sqlValue))
                """
            ).run()
        }
    }

    public func application(clientID: String) async throws -> Application? {
        try await cachedApplications.value(for: clientID) {
            try await executor.read { db in
                try await db.raw("SELECT * FROM applications WHERE client_id = \(bind: clientID)").first()
                    .map(self.application(from:))
            }
        }
    }

    public func listApplications() async throws -> [Application] {
        try await executor.read { db in
            try await db.raw("SELECT * FROM applications ORDER BY created_at, client_id").all().map(self.application(from:))
        }
    }

    public func updateApplication(
        clientID: String, _ transform: @escaping @Sendable (inout Application) throws -> Void
    ) async throws -> Application {
        defer { cachedApplications.invalidate(clientID) }
        return try await executor.transaction { db in
            guard let row = try await db.raw("SELECT * FROM applications WHERE client_id = \(bind: clientID)").first()
            else { throw StorageError.notFound("application \(clientID)") }
            var application = try self.application(from: row)
            try transform(&application)
            let secret = try application.clientSecret.map { try self.sealed($0, SealedColumn.clientSecret) }
            try await db.raw(
                """
                UPDATE applications SET client_secret = \(bind: secret), name = \(bind: application.name),
                type = \(bind: application.type.rawValue), options = \(bind: try Self.options(of: application))
                WHERE client_id = \(bind: clientID)
                """
            ).run()
            application.clientID = clientID
            return application
        }
    }

    public func deleteApplication(clientID: String) async throws {
        defer { cachedApplications.invalidate(clientID) }
        let deleted = try await executor.transaction { db in
            // The application's client grants go with it: a new application can never inherit them.
            try await db.raw("DELETE FROM client_grants WHERE client_id = \(bind: clientID)").run()
            return try await db.raw("DELETE FROM applications WHERE client_id = \(bind: clientID) RETURNING client_id").all()
                .count
        }
        if deleted == 0 { throw StorageError.notFound("application \(clientID)") }
    }

    private static func options(of application: Application) throws -> String {
        try jsonText(
            ApplicationOptions(
                callbacks: application.callbacks, allowedOrigins: application.allowedOrigins,
                grantTypes: application.grantTypes, iosBundleIDs: application.iosBundleIDs,
                androidPackages: application.androidPackages, iosTeamID: application.iosTeamID,
                androidFingerprints: application.androidFingerprints,
                deviceKeyNonceRequired: application.deviceKeyNonceRequired ? true : nil,
                logoutURLs: application.logoutURLs.isEmpty ? nil : application.logoutURLs, logoURL: application.logoURL,
                brandColor: application.brandColor, authMethod: application.authMethod,
                backchannelLogoutURI: application.backchannelLogoutURI,
                frontchannelLogoutURI: application.frontchannelLogoutURI))
    }

    private func application(from row: any SQLRow) throws -> Application {
        let options = try row.json("options", as: ApplicationOptions.self)
        guard let type = ApplicationType(rawValue: try row.string("type")) else {
            throw StorageError.unavailable("unknown application type")
        }
        var application = Application(
            clientID: try row.string("client_id"),
            clientSecret: try row.optionalString("client_secret").map { try opened($0, SealedColumn.clientSecret) },
            name: try row.string("name"), type: type, callbacks: options.callbacks,
            allowedOrigins: options.allowedOrigins, grantTypes: options.grantTypes, isDefault: try row.bool("is_default"),
            iosBundleIDs: options.iosBundleIDs ?? [], androidPackages: options.androidPackages ?? [],
            iosTeamID: options.iosTeamID, androidFingerprints: options.androidFingerprints ?? [],
            createdAt: try row.date("created_at"))
        application.deviceKeyNonceRequired = options.deviceKeyNonceRequired ?? false
        application.logoutURLs = options.logoutURLs ?? []
        application.logoURL = options.logoURL
        application.brandColor = options.brandColor
        application.authMethod = options.authMethod
        application.backchannelLogoutURI = options.backchannelLogoutURI
        application.frontchannelLogoutURI = options.frontchannelLogoutURI
        return application
    }
}

extension SQLStorage: ConnectionRepository {
    public func saveConnection(_ connection: Connection) async throws {
        defer { cachedConnections.invalidate(connection.name) }
        let options = try jsonText(connection)
        try await executor.write { db in
            try await db.raw(
                """
                INSERT INTO connections (name, strategy, options)
                VALUES (\(bind: connection.name), \(bind: connection.strategy.rawValue), \(bind: options))
                ON CONFLICT (name) DO UPDATE SET strategy = excluded.strategy, options = excluded.options
                """
            ).run()
        }
    }

    public func connection(name: String) async throws -> Connection? {
        try await cachedConnections.value(for: name) {
            try await executor.read { db in
                try await db.raw("SELECT options FROM connections WHERE name = \(bind: name)").first()
                    .map { try $0.json("options", as: Connection.self) }
            }
        }
    }

    public func listConnections() async throws -> [Connection] {
        try await executor.read { db in
            try await db.raw("SELECT options FROM connections ORDER BY name").all()
                .map { try $0.json("options", as: Connection.self) }
        }
    }
}
