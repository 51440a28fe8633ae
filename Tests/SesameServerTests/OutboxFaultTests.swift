import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SQLKit
import SesameCore
import SesameStorageConformance
import Synchronization
import Testing

@testable import SesameStorageSQL

/// The delivery worker through faults of its own process and of the database: a message the
/// provider accepted is sent again only across a crash.
@Suite("Outbox faults: database restarts and graceful stops")
struct OutboxFaultTests {
    static let ana = "ana@example.com"
    static let bob = "bob@example.com"

    /// Fault: the database restarts ("terminating connection due to administrator command")
    /// just after the provider accepted a message, so the write that records it as sent
    /// fails. Given up, the delivery's lease would run out and another worker would mail the
    /// same code again; the worker keeps trying instead, and records it once the database is back.
    @Test("database restart after the provider accepted: the outcome is recorded when it is back; no second send")
    func outcomeRecordedAcrossADatabaseRestart() async throws {
        let storage = try await SQLStorage.sqlite(path: nil)
        try await Harness.run(configure: { $0.delivery.sendBeforeAnswering = false }, storage: storage) { h in
            let sender = HeldSender(open: true) { try await Self.database(storage, away: true) }
            let worker = try await h.otherInstance(sending: sender).outbox.worker
            #expect(try await h.start(email: Self.ana).status == .ok)
            Self.outliveTheStartersLease(h)
            async let drained = worker.drain()
            try await Self.until { sender.sent.count == 1 }
            // Long enough for some tries to record to fail (the first come within a second).
            try await Task.sleep(for: .milliseconds(700))
            try await Self.database(storage, away: false)
            #expect(await drained == 1)
            let delivery = try #require(try await h.sesame.deliveries.list(recipient: Self.ana).first)
            #expect(delivery.status == .sent, "recorded once the database was back: \(delivery.status)")
            h.clock.advance(by: 120)  // past any lease
            await worker.drain()
            await h.sesame.outbox.worker.drain()
            #expect(sender.sent == [Self.ana] && h.sender.count == 0, "sent once")
        }
    }

    /// Fault: a rolling restart stops the worker while a send is in flight. Cut off, the
    /// message would go out again (or late) once its lease ran out; stopped gracefully, the
    /// worker finishes and records that send, and claims nothing more.
    @Test("graceful stop: the send in flight finishes and is recorded; nothing new is claimed")
    func stopFinishesTheSendsInFlight() async throws {
        try await Harness.run(configure: { $0.delivery.sendBeforeAnswering = false }) { h in
            let sender = HeldSender(open: false)
            let worker = try await h.otherInstance(sending: sender).outbox.worker
            #expect(try await h.start(email: Self.ana).status == .ok)
            Self.outliveTheStartersLease(h)
            let running = Task { await worker.run() }
            try await Self.until { sender.entered == 1 }
            worker.stop()
            #expect(try await h.start(email: Self.bob).status == .ok)
            Self.outliveTheStartersLease(h)
            worker.wakeUp()
            sender.open()
            await running.value
            let sent = try #require(try await h.sesame.deliveries.list(recipient: Self.ana).first)
            #expect(sent.status == .sent && sender.sent == [Self.ana])
            let waiting = try #require(try await h.sesame.deliveries.list(recipient: Self.bob).first)
            // Its one attempt is the lease it was stored with; a claim would have made two.
            #expect(waiting.status == .pending && waiting.attempts == 1, "left for another instance")
        }
    }

    /// Lets the lease run out that a start's message is stored with for the harness's own
    /// worker, which these tests never run: as if that instance had died.
    static func outliveTheStartersLease(_ h: Harness) {
        h.clock.advance(by: DeliveryWorkerSettings().lease + 1)
    }

    /// Makes every write to the outbox fail as a restarting PostgreSQL does, or work again.
    static func database(_ storage: SQLStorage, away: Bool) async throws {
        let statement: SQLQueryString =
            away
            ? """
            CREATE TRIGGER database_away BEFORE UPDATE ON deliveries
            BEGIN SELECT RAISE(ABORT, 'terminating connection due to administrator command'); END
            """
            : "DROP TRIGGER database_away"
        try await storage.executor.write { db in try await db.raw(statement).run() }
    }

    /// Waits (up to ten seconds) until `condition` holds.
    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 where !condition() {
            try await Task.sleep(for: .milliseconds(10))
        }
        try #require(condition())
    }
}

/// A provider that holds each message until opened, then accepts it and runs `accepted`
/// (the moment the database goes away, say).
final class HeldSender: MessageSender {
    private let state = Mutex<(entered: Int, open: Bool, sent: [String])>((0, false, []))
    private let accepted: @Sendable () async throws -> Void

    init(open: Bool, accepted: @escaping @Sendable () async throws -> Void = {}) {
        self.accepted = accepted
        state.withLock { $0.open = open }
    }

    /// Sends that have begun.
    var entered: Int { state.withLock { $0.entered } }
    /// The recipients of the messages accepted, in order.
    var sent: [String] { state.withLock { $0.sent } }

    /// Lets the held messages through.
    func open() { state.withLock { $0.open = true } }

    func send(_ message: OutgoingMessage) async throws {
        state.withLock { $0.entered += 1 }
        while !state.withLock({ $0.open }) { try await Task.sleep(for: .milliseconds(5)) }
        state.withLock { $0.sent.append(message.recipient) }
        try? await accepted()
    }
}
