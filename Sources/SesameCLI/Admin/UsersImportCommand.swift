import ArgumentParser
import Foundation
import SesameAPI
import SesameCore
import SesameServer
import SesameStorageSQL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension UsersCommand {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a user who has not signed in yet (as POST /api/v2/users), keeping a given user_id.")
        @OptionGroup var storage: StorageOptions
        @Option(help: "The email address (the email connection).") var email: String?
        @Option(help: "The phone number in E.164 form (the sms connection).") var phone: String?
        @Option(help: "The Auth0 user_id to keep (email|5f…, auth0|5f…); default: a new id.") var userID: String?
        @Flag(help: "The address is proven (Auth0's email_verified or phone_verified).") var verified = false
        @Option(help: "The user's name.") var name: String?
        @Flag(help: "Create the user blocked.") var blocked = false
        @Flag(help: "Print the user as JSON.") var json = false

        func validate() throws {
            guard (email == nil) != (phone == nil) else { throw ValidationError("Give --email or --phone.") }
        }

        func run() async throws {
            var new = NewUser(connection: email == nil ? "sms" : "email", email: email, phoneNumber: phone)
            (new.emailVerified, new.phoneVerified) = (email == nil ? nil : verified, phone == nil ? nil : verified)
            (new.userID, new.blocked, new.profile.name) = (userID, blocked, name)
            let candidate = new
            let user = try await administer(storage, with: UserAdministration.self) { try await $0.create(candidate) }
            if json { return try printJSON(UserProfileBody(user)) }
            print("created \(user.userID)")
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import users from a file in Auth0's bulk-import schema (a JSON array), as the import job does.")
        @OptionGroup var storage: StorageOptions
        @Argument(help: "The users file.") var file: String
        @Option(help: "The connection: email or sms.") var connection = "email"
        @Flag(help: "Update users that exist instead of refusing them.") var upsert = false
        @Flag(help: "Print the summary and the refused users as JSON.") var json = false

        func run() async throws {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("Cannot read \(file): \(error.localizedDescription)")
            }
            let (name, upsert, showProgress) = (connection, upsert, !json && isatty(STDERR_FILENO) == 1)
            let (job, errors) = try await withStorage(storage) { store in
                let jobs = UserJobs(
                    users: UserAdministration(storage: store, clock: SystemClock(), logger: .command), logger: .command)
                guard let connection = try await store.connection(name: name) else {
                    throw CommandFailure("No connection \(name).")
                }
                let job = try await jobs.importUsers(data, connectionID: connection.id, upsert: upsert, externalID: nil)
                let finished = try await Self.finish(job, with: jobs, showProgress: showProgress)
                return (finished, try await jobs.errors(job.id))
            }
            if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
            try Self.report(job, errors: errors, json: json)
        }

        /// Runs jobs here until `job` is done (another instance's worker may run it instead).
        static func finish(_ job: Job, with jobs: UserJobs, showProgress: Bool) async throws -> Job {
            let owner = "cli-" + SystemRandomSource().hex(4)
            while true {
                let ran = await jobs.runNext(owner: owner) { running in
                    if showProgress, running.id == job.id { drawProgress(running) }
                }
                let current = try await jobs.job(job.id)
                if current.status == .completed || current.status == .failed { return current }
                if ran == nil { try await Task.sleep(for: .milliseconds(200)) }
            }
        }

        /// A progress bar on standard error, redrawn in place.
        static func drawProgress(_ job: Job) {
            let total = max(job.summary.total, 1)
            let filled = job.processed * 30 / total
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 30 - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(job.processed)/\(job.summary.total)".utf8))
        }

        static func report(_ job: Job, errors: [JobUserError], json: Bool) throws {
            let summary = job.summary
            if json {
                return try printJSON(
                    ImportReport(
                        id: job.id, status: job.status.rawValue, statusDetails: job.statusDetails, failed: summary.failed,
                        updated: summary.updated, inserted: summary.inserted, total: summary.total, errors: errors))
            }
            for error in errors {
                let reasons = error.errors.map { "\($0.code) \($0.path.isEmpty ? "" : "(\($0.path)) ")\($0.message)" }
                print("refused: \(reasons.joined(separator: "; "))")
            }
            print(
                "\(job.status.rawValue): \(summary.inserted) inserted, \(summary.updated) updated, \(summary.failed) failed"
                    + " of \(summary.total) (\(job.id))")
            if let details = job.statusDetails { throw CommandFailure(details) }
        }
    }
}

extension UsersCommand {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export users as Auth0's export job writes them: one JSON object a line, or CSV with a header.")
        @OptionGroup var storage: StorageOptions
        @Option(help: "json or csv.") var format = "json"
        @Option(help: "Only the users of this connection (email or sms).") var connection: String?
        @Option(
            help: """
                Write to this file instead of standard output: gzip-compressed, as the export job's \
                file is, when its name ends in .gz; as plain text otherwise.
                """)
        var output: String?

        func run() async throws {
            let (format, connection) = (format, connection)
            let gzip = output?.lowercased().hasSuffix(".gz") ?? false
            let data = try await withStorage(storage) { store in
                let users = UserAdministration(storage: store, clock: SystemClock(), logger: .command)
                return try await UserJobs(users: users, logger: .command, compression: GzipCompression()).exportFile(
                    connection: connection, format: format, fields: nil, gzip: gzip)
            }
            guard let output else { return FileHandle.standardOutput.write(data) }
            do {
                try data.write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw CommandFailure("Cannot write \(output): \(error.localizedDescription)")
            }
        }
    }
}

/// `sesame admin users import --json`: the job's summary and the users it refused.
struct ImportReport: Encodable {
    var id, status: String
    var statusDetails: String?
    var failed, updated, inserted, total: Int
    var errors: [JobUserError]

    enum CodingKeys: String, CodingKey {
        case id, status, failed, updated, inserted, total, errors
        case statusDetails = "status_details"
    }
}
