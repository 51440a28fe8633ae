import Foundation
import Logging
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

/// Auth0's users export through ``UserJobs``: the files it writes and the signed link they
/// download from.
@Suite("Core: users export jobs")
struct UserExportTests {
    /// Exports every user through a job and returns the finished job.
    static func export(_ world: CoreWorld, format: String, fields: [UserExport.Field]?) async throws -> Job {
        let job = try await world.sesame.jobs.exportUsers(connectionID: nil, format: format, fields: fields)
        #expect(job.kind == .usersExport && job.status == .pending)
        let finished = try #require(await world.sesame.jobs.runNext(owner: "test"))
        #expect(finished.status == .completed)
        return finished
    }

    /// The file behind a completed job's signed location: plain, as Core writes it without the
    /// server's gzip (``ExportCompression``; the server's tests and the end-to-end import check
    /// the gzip file).
    static func download(_ job: Job, _ world: CoreWorld) async throws -> String {
        let location = try #require(world.sesame.jobs.location(of: try await world.sesame.jobs.job(job.id)))
        let query = try #require(URLComponents(string: location)?.queryItems)
        let expires = try #require(Int64(query.first { $0.name == "expires" }?.value ?? ""))
        let signature = try #require(query.first { $0.name == "signature" }?.value)
        let file = try await world.sesame.jobs.file(job.id, expires: expires, signature: signature).data
        return String(decoding: file, as: UTF8.self)
    }

    /// Stands for the server's gzip: each piece written is framed, so the file shows that every
    /// page went through the compression, in order.
    struct FramingCompression: ExportCompression {
        struct File: CompressedFile {
            var written = Data("<".utf8)
            mutating func write(_ bytes: Data) throws { written += bytes + Data("|".utf8) }
            mutating func finish() throws -> Data { written + Data(">".utf8) }
        }
        func start() throws -> any CompressedFile { File() }
    }

    @Test("an export asked for compressed goes through the given compression, a page at a time")
    func compressedExport() async throws {
        try await CoreWorld.run { world in
            for name in ["ana", "ben", "cy"] {
                _ = try await world.sesame.users.create(NewUser(connection: "email", email: "\(name)@example.com"))
            }
            let jobs = UserJobs(
                users: world.sesame.users, logger: Logger(label: "test"), batchSize: 2, compression: FramingCompression())
            let file = try await jobs.exportFile(
                connection: nil, format: "csv", fields: [UserExport.Field(name: "email")], gzip: true)
            let text = String(decoding: file, as: UTF8.self)
            #expect(text.hasPrefix("<") && text.hasSuffix(">"), "started and finished")
            #expect(text.components(separatedBy: "|").count - 1 == 3, "the header and two pages: \(text)")
        }
    }

    @Test("a JSON export is one object a line with the fields asked for, export_as naming them")
    func jsonExport() async throws {
        try await CoreWorld.run { world in
            var new = NewUser(connection: "email", email: "ana@example.com")
            (new.userID, new.appMetadata) = ("auth0|abc", ["plan": .string("pro")])
            _ = try await world.sesame.users.create(new)
            let job = try await Self.export(
                world, format: "json",
                fields: [UserExport.Field(name: "user_id"), UserExport.Field(name: "app_metadata.plan", exportAs: "plan")])
            #expect(try await Self.download(job, world) == #"{"plan":"pro","user_id":"auth0|abc"}"# + "\n")
        }
    }

    /// Attack: a user names themselves `=HYPERLINK(…)` or `@SUM(…)`; an operator who opens
    /// the CSV export in a spreadsheet would run it as a formula (CSV injection).
    @Test("CSV injection: a cell that would start a formula is written as text; a phone number is left as it is")
    func csvInjectionIsDefused() async throws {
        try await CoreWorld.run { world in
            var new = NewUser(connection: "sms", phoneNumber: "+15551230001")
            new.profile.name = "=HYPERLINK(\"https://evil.example\",\"x\")"
            _ = try await world.sesame.users.create(new)
            let job = try await Self.export(
                world, format: "csv", fields: [UserExport.Field(name: "name"), UserExport.Field(name: "phone_number")])
            let lines = try await Self.download(job, world).split(separator: "\r\n")
            #expect(lines == ["name,phone_number", #""'=HYPERLINK(""https://evil.example"",""x"")",+15551230001"#])
        }
    }

    /// Attack: the file's link carries no token, so a forged signature, another job's
    /// signature or a link past its expiry must not download anyone's users.
    @Test("a forged, borrowed or expired file link is refused")
    func forgedLinkIsRefused() async throws {
        try await CoreWorld.run { world in
            _ = try await world.sesame.users.create(NewUser(connection: "email", email: "ana@example.com"))
            let job = try await Self.export(world, format: "json", fields: nil)
            let other = try await Self.export(world, format: "json", fields: nil)
            let location = try #require(world.sesame.jobs.location(of: try await world.sesame.jobs.job(job.id)))
            let query = try #require(URLComponents(string: location)?.queryItems)
            let expires = try #require(Int64(query.first { $0.name == "expires" }?.value ?? ""))
            let signature = try #require(query.first { $0.name == "signature" }?.value)
            let jobs = world.sesame.jobs
            #expect(
                try await refusal { _ = try await jobs.file(job.id, expires: expires, signature: "00" + signature) }.kind
                    == .notFound)
            #expect(
                try await refusal { _ = try await jobs.file(other.id, expires: expires, signature: signature) }.kind == .notFound)
            #expect(
                try await refusal { _ = try await jobs.file(job.id, expires: expires + 60, signature: signature) }.kind
                    == .notFound)
            world.clock.advance(by: 601)
            #expect(
                try await refusal { _ = try await jobs.file(job.id, expires: expires, signature: signature) }.kind == .notFound)
        }
    }
}
