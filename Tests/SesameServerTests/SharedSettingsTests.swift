import Foundation
import Logging
import SesameCore
import SesameServer
import SesameStorageSQL
import Testing

@Suite("Configuration: shared settings kept in the database")
struct SharedSettingsTests {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-settings-\(UUID())").path

    @Test("stored settings apply below flags, environment and file, above the defaults")
    func precedence() async throws {
        let stored = [
            "issuer": "https://login.example.com/", "tokens.id_token_lifetime": "600", "email.provider": "smtp",
            "email.smtp.host": "mail.internal",
        ]
        let fromDatabase = try await ServerConfiguration.load(
            flags: ["data_dir": Self.directory], environment: [:], stored: stored)
        #expect(fromDatabase.settings.issuer == "https://login.example.com/" && !fromDatabase.issuerIsDefault)
        #expect(fromDatabase.settings.idTokenLifetime == 600)
        #expect(fromDatabase.email.provider == "smtp" && fromDatabase.email.smtpHost == "mail.internal")
        let overridden = try await ServerConfiguration.load(
            flags: ["data_dir": Self.directory], environment: ["SESAME_TOKENS_ID_TOKEN_LIFETIME": "900"], stored: stored)
        #expect(overridden.settings.idTokenLifetime == 900, "an instance's own environment wins")
    }

    /// A stored setting must never decide where an instance listens or which database it
    /// opens: that would let whoever can write the table redirect every instance.
    @Test("instance-local keys are not taken from the database")
    func localKeysIgnored() async throws {
        let configuration = try await ServerConfiguration.load(
            flags: ["data_dir": Self.directory], environment: [:],
            stored: [
                "port": "9999", "database_url": "postgres://evil@attacker/db", "host": "0.0.0.0", "http_threads": "64",
                "database_prepared_statements": "false",
            ])
        #expect(configuration.port == 3000 && configuration.databaseURL == nil && configuration.host == "127.0.0.1")
        #expect(configuration.httpThreads == nil, "a thread count belongs to the instance's own machine")
        #expect(configuration.databasePreparedStatements, "whether a pooler sits in front of the database is per instance")
    }

    @Test("database_prepared_statements: on unless turned off; anything but a boolean is refused")
    func preparedStatements() async throws {
        let unset = try await ServerConfiguration.load(flags: ["data_dir": Self.directory], environment: [:])
        #expect(unset.databasePreparedStatements)
        let off = try await ServerConfiguration.load(
            flags: ["data_dir": Self.directory], environment: ["SESAME_DATABASE_PREPARED_STATEMENTS": "false"])
        #expect(!off.databasePreparedStatements)
        await #expect(throws: (any Error).self) {
            try await ServerConfiguration.load(
                flags: ["data_dir": Self.directory], environment: ["SESAME_DATABASE_PREPARED_STATEMENTS": "sometimes"])
        }
    }

    @Test("http_threads: unset picks half the cores; a count is used; zero is refused")
    func httpThreads() async throws {
        let unset = try await ServerConfiguration.load(flags: ["data_dir": Self.directory], environment: [:])
        #expect(unset.httpThreads == nil)
        let set = try await ServerConfiguration.load(
            flags: ["data_dir": Self.directory], environment: ["SESAME_HTTP_THREADS": "3"])
        #expect(set.httpThreads == 3)
        await #expect(throws: (any Error).self) {
            try await ServerConfiguration.load(flags: ["data_dir": Self.directory], environment: ["SESAME_HTTP_THREADS": "0"])
        }
    }

    @Test("unknown keys and invalid values are reported before anything is stored")
    func problems() {
        #expect(SharedSettings.problems(in: ["issuer": "https://login.example.com/"]).isEmpty)
        #expect(SharedSettings.problems(in: ["port": "80"]).count == 1)
        #expect(SharedSettings.problems(in: ["tokens.id_token_lifetime": "soon"]).count == 1)
        #expect(SharedSettings.problems(in: ["email.provider": "smtp"]).count == 1, "smtp needs a host")
        #expect(SharedSettings.display("email.smtp.password", "hunter2") == "****")
    }

    @Test("serve reads the settings of the database its own configuration names")
    func runtimeReadsStoredSettings() async throws {
        let flags = ["data_dir": Self.directory + "-runtime"]
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let local = try await ServerConfiguration.load(flags: flags, environment: [:])
        let storage = try await SesameRuntime.openStorage(local, logger: logger)
        try await storage.updateSettings(set: ["issuer": "https://shared.example.com/"], remove: [], at: Date())
        try await storage.shutdown()
        let runtime = try await SesameRuntime.start(
            local,
            withStored: {
                try await ServerConfiguration.load(flags: flags, environment: [:], stored: $0)
            }, logger: logger)
        let configuration = runtime.configuration
        try await runtime.shutdown()
        #expect(configuration.settings.issuer == "https://shared.example.com/")
        try? FileManager.default.removeItem(atPath: flags["data_dir"]!)
    }
}
