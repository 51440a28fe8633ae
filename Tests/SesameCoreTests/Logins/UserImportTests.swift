import Foundation
import Logging
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

/// Auth0's bulk users import through ``UserJobs``: the file's rules, the users it keeps and
/// refuses, and a job that survives its worker.
@Suite("Core: users import jobs")
struct UserImportTests {
    static func file(_ users: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: users)
    }

    static func emailConnection(_ world: CoreWorld) async throws -> Connection {
        try #require(try await world.sesame.registry.connection(name: "email"))
    }

    /// Submits `users` to the email connection and runs the job to its end.
    static func run(_ users: [[String: Any]], upsert: Bool = false, _ world: CoreWorld) async throws -> Job {
        let connection = try await emailConnection(world)
        let job = try await world.sesame.jobs.importUsers(
            try file(users), connectionID: connection.id, upsert: upsert, externalID: "ext-1")
        #expect(job.status == .pending && job.summary.total == users.count && job.connection == "email")
        return try #require(await world.sesame.jobs.runNext(owner: "test"))
    }

    @Test("an import keeps each user's id, flags, names and metadata; the user signs in with that sub")
    func importKeepsUsers() async throws {
        try await CoreWorld.run { world in
            let job = try await Self.run(
                [
                    [
                        "user_id": MovingFromAuth0Tests.auth0ID, "email": "Ana@Example.com", "email_verified": true,
                        "given_name": "Ana", "app_metadata": ["plan": "pro"], "logins_count": 3,
                        "password_hash": "$2b$10$abc",
                    ],
                    ["email": "bo@example.com", "blocked": true],
                ], world)
            #expect(job.status == .completed && job.summary == JobSummary(failed: 0, updated: 0, inserted: 2, total: 2))
            let ana = try await world.sesame.users.user(MovingFromAuth0Tests.auth0ID)
            #expect(ana.emailVerified && ana.givenName == "Ana" && ana.appMetadata == ["plan": .string("pro")])
            #expect(ana.loginsCount == 0, "what the export reports of past logins is not carried")
            let bo = try await world.sesame.users.user(matching: "bo@example.com")
            #expect(bo.blocked && bo.userID.hasPrefix("email|"))
            let tokens = try await world.signIn("ana@example.com")
            #expect(try await MovingFromAuth0Tests.subject(tokens, world) == MovingFromAuth0Tests.auth0ID)
        }
    }

    @Test("users of other Auth0 connections keep their whole user_id, and sign in by code with it as their sub")
    func otherConnectionsKeepTheirIDs() async throws {
        try await CoreWorld.run { world in
            let ids = ["auth0|5f7c8ec7c33c6c004bbafe83", "google-oauth2|104123456789012345678"]
            let job = try await Self.run(
                [
                    ["user_id": ids[0], "email": "db@example.com", "email_verified": true],
                    ["user_id": ids[1], "email": "social@example.com", "email_verified": true],
                ], world)
            #expect(job.summary.inserted == 2)
            for (id, email) in zip(ids, ["db@example.com", "social@example.com"]) {
                #expect(try await world.sesame.users.user(id).userID == id)
                let tokens = try await world.signIn(email)
                #expect(try await MovingFromAuth0Tests.subject(tokens, world) == id)
            }
        }
    }

    /// Attack: an import file names the address (or the user_id) of someone who already has
    /// an account; without upsert, taking the record over would hand that account to
    /// whoever wrote the file's row.
    @Test("without upsert, a user whose id or address is taken is refused as DUPLICATED_USER and left as it was")
    func duplicateIsRefused() async throws {
        try await CoreWorld.run { world in
            var existing = NewUser(connection: "email", email: "ana@example.com")
            existing.appMetadata = ["plan": .string("free")]
            let ana = try await world.sesame.users.create(existing)
            let job = try await Self.run(
                [
                    ["email": "ana@example.com", "app_metadata": ["plan": "stolen"]],
                    ["email": "other@example.com", "user_id": ana.userID],
                    ["email": "new@example.com"],
                ], world)
            #expect(job.summary == JobSummary(failed: 2, updated: 0, inserted: 1, total: 3))
            let errors = try await world.sesame.jobs.errors(job.id)
            #expect(errors.map { $0.errors.map(\.code) } == [["DUPLICATED_USER"], ["DUPLICATED_USER"]])
            #expect(try await world.sesame.users.user(ana.userID).appMetadata == ["plan": .string("free")])
        }
    }

    /// Attack: a refused user's password hash (or MFA secret) from the Auth0 export would
    /// stay readable through `GET /api/v2/jobs/{id}/errors` by anyone with `read:users`, long
    /// after the file itself is gone.
    @Test("a refused user is echoed in the job's errors without password hashes or MFA factors")
    func refusedUserEchoedWithoutSecrets() async throws {
        try await CoreWorld.run { world in
            let job = try await Self.run(
                [
                    [
                        "email": "a@example.com", "email_verified": "yes", "password_hash": "$2b$10$secret",
                        "custom_password_hash": ["algorithm": "md5", "hash": ["value": "x"]],
                        "mfa_factors": [["totp": ["secret": "2PRXZWZAYYDAWCD"]]],
                    ]
                ], world)
            let echoed = try await world.sesame.jobs.errors(job.id)
            #expect(echoed.map(\.user) == [.object(["email": .string("a@example.com"), "email_verified": .string("yes")])])
        }
    }

    @Test("with upsert, a user that exists is updated")
    func upsertUpdates() async throws {
        try await CoreWorld.run { world in
            let ana = try await world.sesame.users.create(NewUser(connection: "email", email: "ana@example.com"))
            let job = try await Self.run(
                [["email": "ana@example.com", "given_name": "Ana", "email_verified": true]], upsert: true, world)
            #expect(job.summary == JobSummary(failed: 0, updated: 1, inserted: 0, total: 1))
            let updated = try await world.sesame.users.user(ana.userID)
            #expect(updated.givenName == "Ana" && updated.emailVerified)
        }
    }

    @Test("a user with a wrong type, an unknown field, no email or a bad picture is refused in Auth0's terms")
    func invalidUsersAreReported() async throws {
        try await CoreWorld.run { world in
            let job = try await Self.run(
                [
                    ["email": "a@example.com", "email_verified": "yes"],
                    ["email": "b@example.com", "shoe_size": 42],
                    ["name": "No Address"],
                    ["email": "c@example.com", "picture": "http://insecure.example.com/c.png"],
                ], world)
            #expect(job.summary == JobSummary(failed: 4, updated: 0, inserted: 0, total: 4))
            let reasons = try await world.sesame.jobs.errors(job.id).map { $0.errors[0] }
            #expect(
                reasons.map(\.code) == [
                    "INVALID_TYPE", "OBJECT_ADDITIONAL_PROPERTIES", "OBJECT_MISSING_REQUIRED_PROPERTY", "INVALID_FORMAT",
                ])
            #expect(reasons[0].path == "email_verified" && reasons[3].path == "picture")
            #expect(try await world.sesame.storage.countUsers(UserSearch()) == 0)
        }
    }

    /// Attack: a malformed upload (truncated, not JSON, not an array) half-read would write
    /// the users before the fault and hide the rest; the file is refused whole, before any
    /// user is written, with where the fault is.
    @Test("a malformed file is refused with its line and column, and no user is written")
    func malformedFileWritesNoUser() async throws {
        try await CoreWorld.run { world in
            let connection = try await Self.emailConnection(world)
            let bodies = [
                #"[{"email": "ana@example.com"},"# + "\n" + #" {"email": "bo@example.com""#,
                #"{"email": "ana@example.com"}"#, "[\n  {\"email\": \"ana@example.com\"},\n  {\"email\": tru}\n]",
                #"[{"email": "ana@example.com"}, 7]"#, "[]",
            ]
            for body in bodies {
                let refused = try await refusal {
                    _ = try await world.sesame.jobs.importUsers(
                        Data(body.utf8), connectionID: connection.id, upsert: false, externalID: nil)
                }
                #expect(refused.kind == .badRequest, "\(body)")
            }
            let third = try await refusal {
                _ = try await world.sesame.jobs.importUsers(
                    Data(bodies[2].utf8), connectionID: connection.id, upsert: false, externalID: nil)
            }
            #expect(third.message == "users file, line 3, column 3: the user is not valid JSON.")
            #expect(await world.sesame.jobs.runNext(owner: "test") == nil, "no job was stored")
            #expect(try await world.sesame.storage.countUsers(UserSearch()) == 0)
        }
    }

    @Test("a worker that stops lets go of its job, and another instance's worker resumes it at once")
    func stoppedWorkerLetsGo() async throws {
        try await CoreWorld.run { world in
            let connection = try await Self.emailConnection(world)
            let job = try await world.sesame.jobs.importUsers(
                try Self.file([["email": "ana@example.com"]]), connectionID: connection.id, upsert: false, externalID: nil)
            world.sesame.jobs.stop()
            let stopped = try #require(await world.sesame.jobs.runNext(owner: "stopping"))
            #expect(stopped.id == job.id && stopped.status == .processing && stopped.processed == 0)
            let other = UserJobs(users: world.sesame.users, logger: Logger(label: "test"))
            let finished = try #require(await other.runNext(owner: "other"))
            #expect(finished.status == .completed && finished.summary.inserted == 1)
        }
    }

    @Test("a job whose worker died is claimed again once its lease runs out and completes")
    func jobSurvivesItsWorker() async throws {
        try await CoreWorld.run { world in
            let connection = try await Self.emailConnection(world)
            let job = try await world.sesame.jobs.importUsers(
                try Self.file([["email": "ana@example.com"]]), connectionID: connection.id, upsert: false, externalID: nil)
            let now = world.clock.now()
            _ = try await world.sesame.storage.claimJob(owner: "dead", now: now, leaseUntil: now.addingTimeInterval(60))
            #expect(await world.sesame.jobs.runNext(owner: "live") == nil, "the lease holds")
            world.clock.advance(by: 61)
            let finished = try #require(await world.sesame.jobs.runNext(owner: "live"))
            #expect(finished.id == job.id && finished.status == .completed && finished.summary.inserted == 1)
        }
    }
}
