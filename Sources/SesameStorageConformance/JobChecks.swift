import Foundation
import SesameAPI
import SesameCore

/// Auth0's bulk jobs: their files, one worker's lease at a time, and import steps that
/// insert whole users or none.
enum JobChecks {
    static func job(_ id: String, at now: Date) -> Job {
        Job(
            id: id, kind: .usersImport, connection: "email", connectionID: "con_1", externalID: "ext", upsert: false, total: 3,
            at: now)
    }

    static func progress(_ processed: Int, inserted: Int, failed: [JobUserError] = []) -> JobProgress {
        JobProgress(
            processed: processed, summary: JobSummary(failed: failed.count, inserted: inserted, total: 3), errors: failed)
    }

    static let all = [
        ConformanceCheck("jobs: stored with their file; one worker claims a job until its lease runs out") { store, clock in
            let now = clock.now()
            try await store.createJob(job("job_1", at: now), input: Data("[{}]".utf8))
            try await expect(try await store.job(id: "job_1") == job("job_1", at: now), "the job round-trips")
            try await expect(try await store.jobInput(id: "job_1") == Data("[{}]".utf8), "and its file")
            let claimed = try await store.claimJob(owner: "a", now: now, leaseUntil: now + 60)
            try await expect(claimed?.id == "job_1" && claimed?.status == .processing, "the pending job is claimed")
            try await expect(try await store.claimJob(owner: "b", now: now + 30, leaseUntil: now + 90) == nil, "not twice")
            try await expect(
                try await store.claimJob(owner: "b", now: now + 61, leaseUntil: now + 120)?.id == "job_1",
                "claimed again once the lease ran out")
            try await expect(
                !(try await store.finishJob(id: "job_1", owner: "a", status: .completed, output: nil, details: nil, at: now)),
                "the first owner can no longer finish it")
            try await expect(!(try await store.releaseJob(id: "job_1", owner: "a", at: now + 61)), "nor let go of it")
            try await expect(try await store.releaseJob(id: "job_1", owner: "b", at: now + 61), "the owner lets go of it")
            try await expect(
                try await store.claimJob(owner: "b", now: now + 61, leaseUntil: now + 120)?.id == "job_1",
                "and it is claimed again at once")
            try await expect(
                try await store.finishJob(
                    id: "job_1", owner: "b", status: .completed, output: Data("out".utf8), details: nil, at: now + 62),
                "the owner finishes it")
            try await expect(try await store.job(id: "job_1")?.status == .completed, "completed")
            try await expect(try await store.jobOutput(id: "job_1") == Data("out".utf8), "with its output")
            try await expect(try await store.claimJob(owner: "c", now: now + 999, leaseUntil: now + 1999) == nil, "done")
            try await expect(try await store.deleteJobs(createdBefore: now + 1) == 1, "old jobs are deleted")
            try await expect(try await store.job(id: "job_1") == nil, "gone")
        },
        ConformanceCheck("jobs: a file of several pieces round-trips whole, and goes once its job is finished") { store, clock in
            let now = clock.now()
            let file = Data((0..<2_500_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
            try await store.createJob(job("job_3", at: now), input: file)
            try await expect(try await store.jobInput(id: "job_3") == file, "the file round-trips in order")
            try await expect(try await store.jobInput(id: "job_none") == nil, "no job, no file")
            _ = try await store.claimJob(owner: "w", now: now, leaseUntil: now + 60)
            _ = try await store.finishJob(id: "job_3", owner: "w", status: .failed, output: nil, details: "d", at: now)
            try await expect(try await store.jobInput(id: "job_3") == Data(), "a finished job's file is gone")
        },
        ConformanceCheck("jobs: an import step inserts the free users, skips taken ones, records progress and errors") {
            store, clock in
            let now = clock.now()
            try await store.createUser(Fixture.user("taken@example.com", id: "taken00000000000000000000", at: now))
            try await store.createJob(job("job_2", at: now), input: Data("[]".utf8))
            _ = try await store.claimJob(owner: "w", now: now, leaseUntil: now + 60)
            let users = [
                Fixture.user("new@example.com", id: "new000000000000000000000", at: now),
                Fixture.user("taken@example.com", at: now),
                Fixture.user("other@example.com", id: "taken00000000000000000000", at: now),
            ]
            let refused = JobUserError(
                user: .object(["email": .string("taken@example.com")]), errors: [.init(code: "DUPLICATED_USER", message: "m")])
            let inserted = try await store.importUsers(
                users, job: "job_2", owner: "w", progress: { progress(3, inserted: $0.count, failed: [refused]) }, at: now,
                leaseUntil: now + 60)
            try await expect(inserted == ["new000000000000000000000"], "only the free user is inserted")
            try await expect(try await store.user(connection: "email", identifier: "other@example.com") == nil, "no half user")
            let stored = try await store.job(id: "job_2")
            try await expect(stored?.processed == 3 && stored?.summary.inserted == 1, "the progress is recorded")
            try await expect(try await store.jobErrors(id: "job_2") == [refused], "and the refused user")
            let lost = try await store.importUsers(
                [Fixture.user("late@example.com", at: now)], job: "job_2", owner: "other",
                progress: { progress(4, inserted: $0.count) }, at: now, leaseUntil: now + 60)
            try await expect(lost == nil, "a worker without the lease writes nothing")
            try await expect(try await store.user(connection: "email", identifier: "late@example.com") == nil, "no user")
            try await expect(try await store.job(id: "job_2")?.processed == 3, "no progress")
        },
    ]
}
