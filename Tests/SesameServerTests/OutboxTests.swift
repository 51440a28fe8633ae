import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SesameCore
import SesameStorageConformance
import Testing

/// The durable outbox: a start answers before any send, and every message is sent once,
/// through outages, refusals, expiry and several workers.
@Suite("Outbox: durable delivery with retries, leases and an operator's view")
struct OutboxTests {
    static let ana = "ana@example.com"

    /// Fault: the mail server is down when the code is asked for. The message waits in the
    /// outbox, is retried with growing delays, and goes out once the server is back.
    @Test("outage: a transient failure is retried with backoff; once the provider is back the code signs in")
    func transientFailureRetried() async throws {
        try await Harness.run { h in
            h.sender.fail(with: DeliveryError(message: "connection refused"))
            #expect(try await h.start(email: Self.ana).status == .ok, "the start does not wait for the provider")
            var queued = try #require(try await h.sesame.deliveries.list(recipient: Self.ana).first)
            #expect(queued.status == .pending && queued.attempts == 1 && queued.lastError == "connection refused")
            let firstDelay = queued.nextAttemptAt.timeIntervalSince(h.clock.now())
            #expect(firstDelay >= 1 && firstDelay <= 2, "the first retry comes 1–2 s later")
            #expect(await h.sesame.outbox.worker.drain() == 0, "not due yet")
            h.clock.advance(by: 2)
            #expect(await h.sesame.outbox.worker.drain() == 1)
            queued = try #require(try await h.sesame.deliveries.list(recipient: Self.ana).first)
            let secondDelay = queued.nextAttemptAt.timeIntervalSince(h.clock.now())
            #expect(queued.attempts == 2 && secondDelay >= 2 && secondDelay <= 4, "the delay doubles")
            h.sender.fail(with: nil)
            h.clock.advance(by: 4)
            await h.sesame.outbox.worker.drain()
            let sent = try #require(try await h.sesame.deliveries.list(recipient: Self.ana).first)
            #expect(sent.status == .sent && sent.attempts == 3 && sent.payload.isEmpty, "sent; the payload is erased")
            let code = try #require(h.code(for: Self.ana))
            #expect(try await h.otp(Self.ana, code).status == .ok)
            #expect(h.sender.count == 1, "sent once")
        }
    }

    /// Fault: the provider refuses the message for good (an SMTP 5xx, an invalid number at
    /// Twilio). Retrying would only repeat the refusal: the delivery fails at once and is audited.
    @Test("permanent refusal: no retry; the delivery is failed and audited with the provider's detail")
    func permanentFailureStops() async throws {
        try await Harness.run { h in
            h.sender.fail(with: DeliveryError(message: "550 5.1.1 mailbox unavailable", permanent: true))
            #expect(try await h.start(email: Self.ana).status == .ok)
            let failed = try #require(try await h.sesame.deliveries.list(recipient: Self.ana).first)
            #expect(failed.status == .failed && failed.attempts == 1 && failed.lastError == "550 5.1.1 mailbox unavailable")
            h.clock.advance(by: 600)
            #expect(await h.sesame.outbox.worker.drain() == 0, "never tried again by itself")
            let audit = try await h.sesame.storage.recentAuditEvents(limit: 10)
            #expect(audit.contains { $0.type == "delivery_failed" && $0.detail.contains("550 5.1.1") })
        }
    }

    /// Fault: the provider stays down. A code that has expired can sign no one in, so the
    /// outbox stops trying at the code's expiry instead of sending a dead code later.
    @Test("expiry: retries stop at the code's expiry, and an operator's retry of it is refused")
    func retriesStopAtExpiry() async throws {
        try await Harness.run { h in
            h.sender.fail(with: DeliveryError(message: "421 try again later"))
            #expect(try await h.start(email: Self.ana).status == .ok)
            for _ in 0..<40 {
                h.clock.advance(by: 15)
                await h.sesame.outbox.worker.drain()
            }
            let failed = try #require(try await h.sesame.deliveries.list(recipient: Self.ana).first)
            #expect(failed.status == .failed && failed.lastError?.contains("421 try again later") == true)
            #expect(failed.attempts > 4, "tried several times before giving up")
            await #expect(throws: SesameError.self) { _ = try await h.sesame.deliveries.retry(id: failed.id) }
        }
    }

    /// Attack: a copy of the database (a backup, a replica, a support dump) taken while a
    /// message waits must not hold a usable code.
    @Test("sealed: a waiting message's payload does not contain its code; a sent one keeps nothing")
    func payloadSealed() async throws {
        try await Harness.run { h in
            h.sender.fail(with: DeliveryError(message: "timeout"))
            #expect(try await h.start(email: Self.ana).status == .ok)
            let waiting = try #require(try await h.sesame.deliveries.list(recipient: Self.ana).first)
            h.sender.fail(with: nil)
            h.clock.advance(by: 5)
            await h.sesame.outbox.worker.drain()
            let code = try #require(h.code(for: Self.ana))
            let stored = String(decoding: waiting.payload, as: UTF8.self)
            #expect(!waiting.payload.isEmpty && !stored.contains(code) && !stored.contains(Self.ana))
            #expect(try await h.sesame.deliveries.list(recipient: Self.ana).first?.payload.isEmpty == true)
        }
    }

    /// Attack (account enumeration): a blocked user, or an unknown address while signup is
    /// off, must get the same answer as anyone; nothing is sent, and the outbox row says why.
    @Test("suppressed: blocked and unknown-without-signup recipients get the same answer and no message")
    func suppressedDeliveries() async throws {
        try await Harness.run { h in
            _ = try await h.login(email: Self.ana)
            let user = try #require(try await h.sesame.storage.user(connection: "email", identifier: Self.ana))
            _ = try await h.sesame.storage.setUserBlocked(id: user.id, true, at: h.clock.now())
            let before = h.sender.count
            let blocked = try await h.start(email: Self.ana)
            let stranger = try await h.start(email: "eve@example.com")
            #expect(blocked.status == .ok && stranger.status == .ok)
            #expect(try await h.sesame.deliveries.list(recipient: Self.ana).first?.status == .suppressed)
            #expect(h.sender.count == before + 1, "only the stranger (signup is on) gets a message")
        }
    }

    /// Several instances share one database: each message must go out once however many
    /// workers look at the queue at the same moment.
    @Test("two workers on one database: 30 messages, each sent exactly once")
    func twoWorkersSendOnce() async throws {
        try await Harness.run(configure: { $0.delivery.sendBeforeAnswering = false }) { h in
            let other = try await h.otherInstance()
            for index in 0..<30 { #expect(try await h.start(email: "user\(index)@example.com").status == .ok) }
            async let first = h.sesame.outbox.worker.drain()
            async let second = other.outbox.worker.drain()
            let tried = await first + second
            #expect(tried == 30 && h.sender.count == 30)
            #expect((0..<30).allSatisfy { h.sender.sent(to: "user\($0)@example.com").count == 1 })
        }
    }

    /// A start stores its message leased to its own instance's worker and hands it over, so
    /// the message costs no claim: another instance's worker finds nothing to claim, and the
    /// message's one attempt is that lease.
    @Test("a start's message goes to its own worker without a claim")
    func startHandsItsMessageOver() async throws {
        try await Harness.run(configure: { $0.delivery.sendBeforeAnswering = false }) { h in
            let other = try await h.otherInstance()
            #expect(try await h.start(email: Self.ana).status == .ok)
            #expect(await other.outbox.worker.drain() == 0, "leased to the starting instance")
            #expect(await h.sesame.outbox.worker.drain() == 1 && h.sender.count == 1)
            let sent = try #require(try await h.sesame.deliveries.list(recipient: Self.ana).first)
            #expect(sent.status == .sent && sent.attempts == 1)
        }
    }

    /// Fault: a handed message waits in the worker's memory (every slot busy, the process
    /// stalled) until its lease, not renewed meanwhile, is nearly out, when another worker may
    /// claim it. Sent from memory then, it could go out twice; it is left to a claim instead.
    @Test("a handed message that waited past half its lease is left to a claim and sent once")
    func staleHandOffLeftToAClaim() async throws {
        try await Harness.run(configure: { $0.delivery.sendBeforeAnswering = false }) { h in
            #expect(try await h.start(email: Self.ana).status == .ok)
            let lease = DeliveryWorkerSettings().lease
            h.clock.advance(by: lease / 2 + 1)
            #expect(await h.sesame.outbox.worker.drain() == 0 && h.sender.count == 0, "not sent from memory")
            h.clock.advance(by: lease / 2)
            #expect(await h.sesame.outbox.worker.drain() == 1 && h.sender.count == 1, "claimed once the lease ran out")
            let sent = try #require(try await h.sesame.deliveries.list(recipient: Self.ana).first)
            #expect(sent.status == .sent && sent.attempts == 2)
            #expect(await h.sesame.outbox.worker.drain() == 0 && h.sender.count == 1, "sent once")
        }
    }

    /// Attack: a flood of starts while the provider stalls. The messages handed to the worker
    /// wait in memory while every slot is busy; unbounded, the flood would grow the process
    /// until it died. Four batches wait at most; the oldest beyond that go back to storage
    /// with their leases ended, so the next claim takes them at once (before, they waited out
    /// the lease, and a burst of starts had people wait 15 s for a code), each still sent once.
    @Test("a flood of hand-offs is bounded in memory; the overflow is claimed at once, each sent once")
    func handOffsBounded() async throws {
        try await Harness.run(configure: { $0.delivery.sendBeforeAnswering = false }) { h in
            let settings = DeliveryWorkerSettings()
            let recipients = (0..<(settings.batchSize * 4 + 6)).map { "flood\($0)@example.com" }
            for recipient in recipients {
                let answer = try await h.start(email: recipient)
                #expect(answer.status == .ok)
            }
            let other = try await h.otherInstance()
            #expect(await other.outbox.worker.drain() == 6, "the oldest six were let go: any worker claims them, now")
            #expect(await h.sesame.outbox.worker.drain() == settings.batchSize * 4, "the newest four batches, from memory")
            #expect(recipients.allSatisfy { h.sender.sent(to: $0).count == 1 }, "each sent once")
            #expect(await h.sesame.outbox.worker.drain() == 0)
            #expect(await other.outbox.worker.drain() == 0)
        }
    }

    /// Fault: a retry comes due while a steady stream of starts keeps the worker busy. The
    /// hand-offs alone would keep one drain going without ever looking at storage again, and
    /// the retry (like other instances' messages) would wait for a quiet moment; the drain
    /// looks once a poll interval has passed.
    @Test("a worker kept busy by hand-offs still looks at storage each poll interval: a due retry is sent")
    func busyWorkerStillClaims() async throws {
        try await Harness.run(configure: { $0.delivery.sendBeforeAnswering = false }) { h in
            h.sender.fail(with: DeliveryError(message: "421 try again later"))
            #expect(try await h.start(email: Self.ana).status == .ok)
            #expect(await h.sesame.outbox.worker.drain() == 1 && h.sender.count == 0, "failed; a retry is stored")
            h.sender.fail(with: nil)
            h.sender.hold()
            #expect(try await h.start(email: "bob@example.com").status == .ok)
            let draining = Task { await h.sesame.outbox.worker.drain() }
            for _ in 0..<1000 where h.sender.held == 0 { try await Task.sleep(for: .milliseconds(5)) }
            h.clock.advance(by: 3)  // the retry is due, and so is a look at storage
            #expect(try await h.start(email: "cy@example.com").status == .ok)
            h.sender.release()
            #expect(await draining.value == 3, "bob and cy from memory, ana's retry from storage, in one drain")
            #expect(h.sender.sent(to: Self.ana).count == 1)
        }
    }

    /// An operator fixes the mail configuration and sends a failed message again.
    @Test("operator retry: a failed message is sent again while its code lives; sent ones and unknown ids are refused")
    func operatorRetry() async throws {
        try await Harness.run { h in
            h.sender.fail(with: DeliveryError(message: "535 authentication failed", permanent: true))
            #expect(try await h.start(email: Self.ana).status == .ok)
            let failed = try #require(try await h.sesame.deliveries.list(status: .failed).first)
            h.sender.fail(with: nil)
            let retried = try await h.sesame.deliveries.retry(id: failed.id)
            #expect(retried.status == .pending && retried.attempts == 0)
            #expect(await h.sesame.outbox.worker.drain() == 1 && h.code(for: Self.ana) != nil)
            await #expect(throws: SesameError.self) { _ = try await h.sesame.deliveries.retry(id: failed.id) }
            await #expect(throws: SesameError.self) { _ = try await h.sesame.deliveries.retry(id: "nope") }
        }
    }
}
