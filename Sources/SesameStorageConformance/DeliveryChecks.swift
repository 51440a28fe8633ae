import Foundation
import SesameCore

enum DeliveryChecks {
    static func delivery(_ id: String, at now: Date, to recipient: String = "ana@example.com", lifetime: TimeInterval = 300)
        -> QueuedDelivery
    {
        QueuedDelivery(
            id: id, channel: "email", recipient: recipient, payload: Array("sealed \(id)".utf8),
            deadline: now.addingTimeInterval(lifetime), createdAt: now)
    }

    static let all = [
        ConformanceCheck("deliveries: a worker renews only its own leases; a lapsed one is claimed by another") {
            store, clock in
            let now = clock.now()
            try await store.enqueueDeliveries([delivery("r1", at: now), delivery("r2", at: now)])
            let mine = try await store.claimDeliveries(owner: "a", now: now, leaseUntil: now + 15, limit: 1)
            try await expect(mine.count == 1, "one claimed")
            try await expect(
                try await store.renewDeliveryLeases(ids: ["r1", "r2"], owner: "a", until: now + 30) == 1,
                "only the lease it holds is renewed")
            try await expect(
                try await store.claimDeliveries(owner: "b", now: now + 20, leaseUntil: now + 35, limit: 5).map(\.id)
                    == [mine[0].id == "r1" ? "r2" : "r1"], "a renewed lease holds past its first end")
            let lapsed = try await store.claimDeliveries(owner: "b", now: now + 31, leaseUntil: now + 46, limit: 5)
            try await expect(lapsed.map(\.id) == [mine[0].id], "a lapsed lease (a dead worker) is claimed again")
            try await expect(
                try await !store.finishDelivery(id: mine[0].id, owner: "a", outcome: .sent, at: now + 32),
                "the first owner can no longer record an outcome")
        },
        ConformanceCheck("deliveries: a challenge and its message are stored together; the message round-trips") {
            store, clock in
            let now = clock.now()
            let challenge = Challenge(
                id: "c1", connection: "email", recipient: "ana@example.com", clientID: "app", kind: .code,
                secretHash: Array(repeating: 1, count: 32), maxAttempts: 3, createdAt: now,
                expiresAt: now.addingTimeInterval(300))
            try await store.createChallenge(
                challenge, delivery: delivery("d1", at: now), audit: AuditEvent(type: "code_sent", detail: "d1", at: now))
            try await expect(
                try await store.newestChallenge(connection: "email", recipient: "ana@example.com")?.id == "c1",
                "the challenge is stored")
            try await expect(try await store.delivery(id: "d1") == delivery("d1", at: now), "every field round-trips")
            try await expect(try await store.pendingDeliveries().count == 1, "one pending")
            // A duplicate delivery id fails the whole transaction: no second challenge either.
            var again = challenge
            again.id = "c2"
            do {
                try await store.createChallenge(
                    again, delivery: delivery("d1", at: now), audit: AuditEvent(type: "code_sent", detail: "d2", at: now))
            } catch {}
            try await expect(
                try await store.newestChallenge(connection: "email", recipient: "ana@example.com")?.id == "c1",
                "a failed message insert leaves no challenge behind")
            try await expect(
                try await store.recentAuditEvents(limit: 10).map(\.detail) == ["d1"],
                "the sending is audited with its challenge, and not when the challenge is not stored")
        },
        ConformanceCheck("deliveries: a gated message is withheld from a blocked account, or an unknown one without signup") {
            store, clock in
            // User enumeration and sending to the blocked: the gate is decided from the stored
            // account inside the insert, and a withheld message keeps no payload.
            let now = clock.now()
            try await store.createUser(Fixture.user("known@example.com", id: "u-known", at: now))
            var blocked = Fixture.user("blocked@example.com", id: "u-blocked", at: now)
            blocked.blocked = true
            try await store.createUser(blocked)
            let cases: [(recipient: String, signupDisabled: Bool, delivered: Bool)] = [
                ("unknown@example.com", false, true), ("unknown@example.com", true, false),
                ("known@example.com", true, true), ("blocked@example.com", false, false),
            ]
            for (index, item) in cases.enumerated() {
                let challenge = Fixture.challenge(id: "c\(index)", recipient: item.recipient, at: now)
                let gate = DeliveryGate(connection: "email", identifier: item.recipient, signupDisabled: item.signupDisabled)
                let toSend = try await store.createChallenge(
                    challenge, delivery: delivery("d\(index)", at: now, to: item.recipient), audit: nil, gate: gate)
                try await expect(toSend == item.delivered, "\(item): the caller is told whether it is to be sent")
                let stored = try await store.delivery(id: "d\(index)")
                let delivered =
                    item.delivered
                    ? stored == delivery("d\(index)", at: now, to: item.recipient)
                    : stored?.status == .suppressed && stored?.payload == []
                try await expect(delivered, "\(item): stored \(String(describing: stored?.status))")
                try await expect(
                    gate.delivers(to: try await store.user(connection: "email", identifier: item.recipient))
                        == item.delivered, "the SQL decides as DeliveryGate.delivers(to:)")
            }
        },
        ConformanceCheck("deliveries: a message stored leased is its owner's until the lease runs out, then anyone's") {
            store, clock in
            // A start stores its message leased to its own instance's worker, which sends it
            // without a claim; no other worker may claim it meanwhile, or both would send it.
            let now = clock.now()
            var leased = delivery("d1", at: now)
            (leased.leaseOwner, leased.leaseUntil, leased.attempts) = ("w1", now + 15, 1)
            try await expect(
                try await store.createChallenge(Fixture.challenge(id: "c1", at: now), delivery: leased, audit: nil, gate: nil),
                "an ungated message is to be sent")
            try await expect(try await store.delivery(id: "d1") == leased, "stored with its lease")
            try await expect(
                try await store.claimDeliveries(owner: "w2", now: now + 14, leaseUntil: now + 29, limit: 5).isEmpty,
                "not claimed while the lease runs")
            let lapsed = try await store.claimDeliveries(owner: "w2", now: now + 16, leaseUntil: now + 31, limit: 5)
            try await expect(
                lapsed.map(\.id) == ["d1"] && lapsed[0].attempts == 2, "claimed once the lease ran out (a dead instance)")
            try await expect(
                !(try await store.finishDelivery(id: "d1", owner: "w1", outcome: .sent, at: now + 17)),
                "the first owner can no longer record an outcome")
            try await expect(
                try await store.finishDelivery(id: "d1", owner: "w2", outcome: .sent, at: now + 17), "the claimer records it")
        },
        ConformanceCheck("deliveries: a claim leases due rows once, counts an attempt, and skips leased and future ones") {
            store, clock in
            let now = clock.now()
            var later = delivery("later", at: now)
            later.nextAttemptAt = now.addingTimeInterval(60)
            try await store.enqueueDeliveries([delivery("a", at: now), delivery("b", at: now), later])
            let first = try await store.claimDeliveries(owner: "w1", now: now, leaseUntil: now + 120, limit: 10)
            try await expect(Set(first.map(\.id)) == ["a", "b"], "due rows only")
            try await expect(first.allSatisfy { $0.attempts == 1 && $0.leaseOwner == "w1" }, "attempt counted, lease held")
            let second = try await store.claimDeliveries(owner: "w2", now: now, leaseUntil: now + 120, limit: 10)
            try await expect(second.isEmpty, "a leased row is not claimed again while its lease runs")
            clock.advance(by: 121)
            let reclaimed = try await store.claimDeliveries(
                owner: "w2", now: clock.now(), leaseUntil: clock.now() + 120, limit: 10)
            try await expect(
                Set(reclaimed.map(\.id)) == ["a", "b", "later"], "a dead worker's rows come back after the lease")
            try await expect(
                !(try await store.finishDelivery(id: "a", owner: "w1", outcome: .sent, at: clock.now())),
                "the worker that lost the lease cannot record an outcome")
        },
        ConformanceCheck("deliveries: sent erases the payload; retry reschedules; failed stops; retry revives a failure") {
            store, clock in
            let now = clock.now()
            try await store.enqueueDeliveries([delivery("a", at: now), delivery("b", at: now)])
            _ = try await store.claimDeliveries(owner: "w", now: now, leaseUntil: now + 120, limit: 10)
            try await expect(try await store.finishDelivery(id: "a", owner: "w", outcome: .sent, at: now), "recorded")
            let sent = try await store.delivery(id: "a")
            try await expect(
                sent?.status == .sent && sent?.payload == [] && sent?.sentAt == now && sent?.leaseOwner == nil,
                "sent, payload erased, lease released")
            try await expect(
                try await store.finishDelivery(
                    id: "b", owner: "w", outcome: .retry(at: now + 30, error: "421 try later"), at: now), "recorded")
            try await expect(
                try await store.claimDeliveries(owner: "w", now: now + 10, leaseUntil: now + 130, limit: 10).isEmpty,
                "not due before its retry time")
            let due = try await store.claimDeliveries(owner: "w", now: now + 30, leaseUntil: now + 150, limit: 10)
            try await expect(due.map(\.id) == ["b"] && due.first?.attempts == 2, "due again, second attempt")
            try await expect(due.first?.lastError == "421 try later", "the last error is kept")
            _ = try await store.finishDelivery(id: "b", owner: "w", outcome: .failed(error: "550 no such user"), at: now + 30)
            try await expect(try await store.delivery(id: "b")?.status == .failed, "failed")
            try await expect(try await store.pendingDeliveries().count == 0, "nothing pending")
            try await expect(!(try await store.retryDelivery(id: "a", at: now, deadline: now + 300)), "a sent one is not retried")
            try await expect(try await store.retryDelivery(id: "b", at: now + 40, deadline: now + 300), "a failed one is")
            let revived = try await store.delivery(id: "b")
            try await expect(revived?.status == .pending && revived?.attempts == 0, "pending again, attempts reset")
        },
        ConformanceCheck("deliveries: listed newest first, by status and recipient; swept after their retention") {
            store, clock in
            try await store.enqueueDeliveries([delivery("a", at: clock.now(), to: "ana@example.com")])
            clock.advance(by: 1)
            var suppressed = delivery("b", at: clock.now(), to: "bob@example.com")
            suppressed.status = .suppressed
            try await store.enqueueDeliveries([suppressed])
            try await expect(
                try await store.deliveries(status: nil, recipient: nil, limit: 10).map(\.id) == ["b", "a"], "newest first")
            try await expect(
                try await store.deliveries(status: .suppressed, recipient: nil, limit: 10).map(\.id) == ["b"], "by status")
            try await expect(
                try await store.deliveries(status: nil, recipient: "ana@example.com", limit: 10).map(\.id) == ["a"],
                "by recipient")
            try await expect(
                try await store.claimDeliveries(owner: "w", now: clock.now(), leaseUntil: clock.now() + 60, limit: 10).map(\.id)
                    == ["a"], "a suppressed delivery is never claimed")
            clock.advance(by: 10)
            let counts = try await store.sweep(
                now: clock.now(), windowsBefore: clock.now(), outboxBefore: clock.now(), deliveriesBefore: clock.now() - 5)
            try await expect(counts.removed["deliveries"] == 2, "both swept")
        },
        ConformanceCheck("deliveries: of 8 concurrent claims each due row goes to exactly one worker") { store, clock in
            let now = clock.now()
            try await store.enqueueDeliveries((0..<40).map { delivery("d\($0)", at: now) })
            let claims = try await concurrently(8) {
                try await store.claimDeliveries(owner: UUID().uuidString, now: now, leaseUntil: now + 60, limit: 10).map(\.id)
            }
            let all = claims.flatMap { $0 }
            try await expect(
                all.count == 40 && Set(all).count == 40,
                "40 rows, each claimed once (claimed \(all.count), \(Set(all).count) distinct: \(claims.map(\.count)))")
        },
    ]
}
