import Foundation
import SesameCore

enum LinkRequestChecks {
    static func request(id: String, hash: UInt8, at now: Date, lifetime: TimeInterval = 900) -> LinkRequest {
        LinkRequest(
            id: id, pollSecretHash: Array(repeating: hash, count: 32), challengeID: "ch-\(id)", clientID: "client",
            connection: "email", recipient: "ana@example.com", matchCode: "42", createdAt: now,
            expiresAt: now.addingTimeInterval(lifetime), ip: "198.51.100.7")
    }

    static let all = [
        ConformanceCheck("link requests: stored, found by id and by any of their poll-secret hashes; duplicates refused") {
            store, clock in
            let stored = request(id: "lr1", hash: 1, at: clock.now())
            try await store.createLinkRequest(stored)
            try await expect(try await store.linkRequest(id: "lr1") == stored, "found by id, every field round-trips")
            let found = try await store.linkRequest(pollSecretHashes: [
                Array(repeating: 9, count: 32), Array(repeating: 1, count: 32),
            ])
            try await expect(found == stored, "found by a previous key's hash")
            try await expect(try await store.linkRequest(id: "nope") == nil, "an unknown id is nil")
            try await expect(
                try await store.linkRequest(pollSecretHashes: [Array(repeating: 9, count: 32)]) == nil, "an unknown hash is nil")
            try await expectStorageError(.alreadyExists()) {
                try await store.createLinkRequest(request(id: "lr2", hash: 1, at: clock.now()))
            }
        },
        ConformanceCheck("link requests: pending → approved with the user, then → completed; each transition once") {
            store, clock in
            try await store.createLinkRequest(request(id: "lr1", hash: 1, at: clock.now()))
            clock.advance(by: 10)
            let approvedAt = clock.now()
            try await expect(
                !(try await store.transitionLinkRequest(id: "lr1", from: .approved, to: .completed, userID: nil, at: approvedAt)),
                "a pending request cannot be completed as if approved")
            try await expect(
                try await store.transitionLinkRequest(
                    id: "lr1", from: .pending, to: .approved, userID: "email|ana", at: approvedAt), "approved")
            try await expect(
                !(try await store.transitionLinkRequest(id: "lr1", from: .pending, to: .denied, userID: nil, at: approvedAt)),
                "an approved request cannot be denied")
            let approved = try await store.linkRequest(id: "lr1")
            try await expect(
                approved?.status == .approved && approved?.userID == "email|ana" && approved?.decidedAt == approvedAt,
                "the user and the decision time are recorded")
            clock.advance(by: 5)
            try await expect(
                try await store.transitionLinkRequest(id: "lr1", from: .approved, to: .completed, userID: nil, at: clock.now()),
                "completed")
            let completed = try await store.linkRequest(id: "lr1")
            try await expect(
                completed?.status == .completed && completed?.userID == "email|ana" && completed?.decidedAt == approvedAt,
                "completing keeps the user and the approval time")
        },
        ConformanceCheck("link requests: of 20 concurrent completions exactly one succeeds") { store, clock in
            try await store.createLinkRequest(request(id: "lr1", hash: 1, at: clock.now()))
            _ = try await store.transitionLinkRequest(
                id: "lr1", from: .pending, to: .approved, userID: "email|a", at: clock.now())
            let results = try await concurrently(20) {
                try await store.transitionLinkRequest(id: "lr1", from: .approved, to: .completed, userID: nil, at: clock.now())
            }
            try await expect(results.filter { $0 }.count == 1, "single use: \(results.filter { $0 }.count) succeeded")
        },
        ConformanceCheck("link requests: deny and same-device completion; nothing moves once expired; the sweeper removes them") {
            store, clock in
            try await store.createLinkRequest(request(id: "lr1", hash: 1, at: clock.now()))
            try await store.createLinkRequest(request(id: "lr2", hash: 2, at: clock.now()))
            try await store.createLinkRequest(request(id: "lr3", hash: 3, at: clock.now(), lifetime: 60))
            try await expect(
                try await store.transitionLinkRequest(id: "lr1", from: .pending, to: .denied, userID: nil, at: clock.now()),
                "denied")
            try await expect(try await store.linkRequest(id: "lr1")?.status == .denied, "stored as denied")
            try await expect(
                try await store.transitionLinkRequest(id: "lr2", from: .pending, to: .completed, userID: nil, at: clock.now()),
                "completed on the asking device")
            clock.advance(by: 60)
            try await expect(
                !(try await store.transitionLinkRequest(
                    id: "lr3", from: .pending, to: .approved, userID: "email|a", at: clock.now())),
                "an expired request cannot be approved")
            try await expect(try await store.linkRequest(id: "lr3")?.status == .pending, "and stays as it was")
            clock.advance(by: 841)
            let swept = try await store.sweep(now: clock.now(), windowsBefore: clock.now(), outboxBefore: clock.now())
            try await expect(swept.removed["link_requests"] == 3, "the sweeper removes expired requests")
            try await expect(try await store.linkRequest(id: "lr2") == nil, "gone")
        },
    ]
}
