import ArgumentParser
import Foundation
import SesameAPI
import SesameCore
import SesameServer
import SesameStorageSQL

/// `sesame admin sessions`: browser sessions of the hosted login page.
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions", abstract: "Browser sessions of the hosted login page (single sign-on).",
        subcommands: [List.self, Revoke.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List live sessions, newest first.")
        @OptionGroup var storage: StorageOptions
        @Option(name: .customLong("user"), help: "Only this user (user_id, email address or phone number).")
        var userID: String?
        @Option(help: "At most this many.") var limit = 100
        @Flag(help: "Print a JSON array.") var json = false

        func run() async throws {
            let (userID, limit) = (userID, limit)
            let sessions = try await withSessions(storage) { sessions, store in
                if let userID = try await resolvedUserID(userID, in: store) { return try await sessions.list(userID: userID) }
                return try await sessions.listAll(limit: limit)
            }
            if json { return try printJSON(sessions.map { SessionBody($0) }) }
            for session in sessions {
                print(
                    "\(session.id)  \(session.userID)  \(session.methods.joined(separator: ","))  "
                        + "last seen \(ISO8601.string(session.lastSeenAt))  \(session.ip ?? "-")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "End a session (or every session of a user with --user); the browser must sign in again.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The session id.") var id: String?
        @Option(name: .customLong("user"), help: "End every session of this user (user_id, email address or phone number).")
        var userID: String?

        func validate() throws {
            guard (id == nil) != (userID == nil) else { throw ValidationError("give a session id or --user, not both") }
        }

        func run() async throws {
            let (id, userID) = (id, userID)
            let ended = try await withSessions(storage) { sessions, store in
                if let userID = try await resolvedUserID(userID, in: store) {
                    return try await sessions.revokeAll(userID: userID)
                }
                try await sessions.revoke(id: id ?? "", userID: nil)
                return 1
            }
            print("ended \(ended) session(s)")
        }
    }
}

/// Runs `body` with the browser sessions of the configured storage and settings.
private func withSessions<T: Sendable>(
    _ options: StorageOptions, _ body: @escaping @Sendable (SessionAdministration, SQLStorage) async throws -> T
)
    async throws -> T
{
    let configuration = try await CLIConfiguration.load(flags: options.flags)
    do {
        return try await withStorage(options) { store in
            try await body(SessionAdministration(storage: store, settings: configuration.settings, logger: .command), store)
        }
    } catch let error as SesameError {
        throw CommandFailure(error.message)
    }
}
