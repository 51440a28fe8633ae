import ArgumentParser
import Foundation
import SesameAPI
import SesameCore
import SesameServer

/// `sesame admin audit list`: the audit trail, newest first.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "The audit trail: logins, failures, codes, registrations and admin changes.",
        subcommands: [List.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List audit events, newest first.")
        @OptionGroup var storage: StorageOptions
        @Option(help: "Only this user's events (user_id, e.g. email|5f3c…, email address or phone number).")
        var user: String?
        @Option(help: "Only this type: Sesame's event (login, otp_failed, user_blocked, …) or Auth0's code (s, fp, sapi, …).")
        var type: String?
        @Option(help: "Only events at or after this time (ISO 8601, e.g. 2026-11-26T00:00:00Z).") var since: String?
        @Option(help: "At most this many (1–1000).") var limit = 50
        @Flag(help: "Print a JSON array.") var json = false

        func validate() throws {
            if let since, ISO8601.date(since) == nil { throw ValidationError("--since must be an ISO 8601 time") }
        }

        func run() async throws {
            let (user, type, since, limit) = (user, type, since.flatMap(ISO8601.date), limit)
            let events = try await withStorage(storage) { store in
                let query = AuditQuery(
                    userID: try await resolvedUserID(user, in: store), types: type.map(LogBody.auditTypes(matching:)),
                    since: since, limit: limit)
                return try await AuditTrail(storage: store).list(query)
            }
            if json { return try printJSON(events.map(LogBody.init)) }
            for event in events {
                let who = [event.userID, event.clientID, event.ip].compactMap { $0 }.joined(separator: " ")
                print("\(ISO8601.string(event.at))  \(event.type)  \(who)  \(event.detail)")
            }
        }
    }
}
