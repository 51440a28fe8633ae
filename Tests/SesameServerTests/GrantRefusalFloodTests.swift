import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import SesameAPI
import SesameCore
import SesameServer
import SesameStorageConformance
import Testing

/// Attack (write amplification): one client sends refused grants as fast as it can, device-key
/// assertions naming unknown `kid`s, say. Each refusal was audited (kept 90 days), queued a
/// webhook call in the outbox and checked storage: 200 requests in 1.3 s made 200 audit rows,
/// 200 outbox rows and 200 webhook calls, about 13 GB of audit a day from one client. Now an
/// address's refusals are limited per minute (then 429 before any other work), repeated
/// identical refusals add to one audit row's count, and only that row's first refusal is sent
/// to webhooks.
@Suite("Attacks: a flood of refused grants from one address")
struct GrantRefusalFloodTests {
    static let attacker = "203.0.113.66"
    static let hooks = "https://hooks.example.com/sesame"
    /// One key for every forged assertion: keys are slow to make in debug builds.
    static let forger = TestDeviceKey.p256()

    static func limited(_ settings: inout LoginSettings) {
        settings.grantRefusalLimitPerIP = RateLimitRule(limit: 30, windowSeconds: 60)
        settings.deviceKeys.allowRSA1024 = true
    }

    static func from(_ ip: String) -> HTTPFields { [HTTPField.Name("X-Forwarded-For")!: ip] }

    /// An assertion naming a device credential that does not exist.
    static func unknownKid(_ h: Harness, _ n: Int) -> String {
        let now = h.clock.now().epochSeconds
        return forger.jwt(
            ["sub": "email|nobody", "aud": h.sesame.settings.issuer, "iat": now, "exp": now + 30, "jti": "j\(n)"],
            header: ["kid": "no-such-key-\(n)"])
    }

    /// A webhook endpoint that asked for failed logins, as an operator would register one.
    static func subscribe(_ h: Harness) async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let webhooks = WebhookAdministration(
            storage: h.sesame.storage, clock: h.clock, random: SeededRandomSource(seed: 11), logger: logger)
        _ = try await webhooks.create(url: hooks, events: ["login.failed"])
    }

    /// The refusals audited: rows of `type`, and what their counts add up to.
    static func audited(_ h: Harness, _ type: String) async throws -> (rows: Int, refusals: Int) {
        let rows = try await h.sesame.storage.recentAuditEvents(limit: 1000).filter { $0.type == type }
        return (rows.count, rows.reduce(0) { $0 + $1.count })
    }

    static func webhookCalls(_ h: Harness) async throws -> Int {
        try await h.sesame.storage.deliveries(status: nil, recipient: hooks, limit: 1000).count
    }

    /// Sends `count` refused requests made by `request`; returns how many got each status.
    static func flood(_ count: Int, _ request: (Int) async throws -> TestResponse) async throws -> [Int: Int] {
        var statuses: [Int: Int] = [:]
        for n in 0..<count {
            let response = try await request(n)
            statuses[response.status.code, default: 0] += 1
            if response.status == .tooManyRequests {
                #expect(response.error?.error == "too_many_attempts", "Auth0's shape: \(response.text)")
            }
        }
        return statuses
    }

    @Test("200 jwt-bearer assertions with unknown kids: 429 after the limit, one audit row, one webhook call")
    func unknownKidFlood() async throws {
        try await Harness.run(configure: Self.limited) { h in
            try await Self.subscribe(h)
            let statuses = try await Self.flood(200) { n in
                try await h.post(
                    "/oauth/token",
                    ["grant_type": GrantType.jwtBearer, "client_id": h.clientID, "assertion": Self.unknownKid(h, n)],
                    headers: Self.from(Self.attacker))
            }
            #expect(statuses == [403: 30, 429: 170], "\(statuses)")
            let audit = try await Self.audited(h, "device_key_refused")
            #expect(audit.rows == 1 && audit.refusals == 30, "\(audit)")
            #expect(try await Self.webhookCalls(h) == 1, "one call for the window's first refusal")
            // The JSON of the audit list (the management API's logs, `sesame admin audit list
            // --json`) says how many refusals the row stands for.
            let row = try #require(
                try await h.sesame.storage.recentAuditEvents(limit: 5).first { $0.type == "device_key_refused" })
            #expect(LogBody(row).count == 30)

            // Another address is not limited by the attacker's refusals, nor is a success counted.
            let device = try await h.enroll()
            let login = try await h.post(
                "/oauth/token", ["grant_type": GrantType.jwtBearer, "client_id": h.clientID, "assertion": device.assertion(h)],
                headers: Self.from("198.51.100.20"))
            #expect(login.status == .ok, "\(login.text)")
            // The next minute the attacker may be refused again, in a new row.
            h.clock.advance(by: 60)
            let again = try await h.post(
                "/oauth/token",
                ["grant_type": GrantType.jwtBearer, "client_id": h.clientID, "assertion": Self.unknownKid(h, 999)],
                headers: Self.from(Self.attacker))
            #expect(again.status == .forbidden)
            #expect(try await Self.audited(h, "device_key_refused") == (2, 31))
            #expect(try await Self.webhookCalls(h) == 2)
        }
    }

    @Test("200 TouchIDAuth logins at /oauth/ro with unknown devices: 429 after the limit, one audit row, one webhook call")
    func legacyUnknownDeviceFlood() async throws {
        try await Harness.run(configure: Self.limited) { h in
            try await Self.subscribe(h)
            let statuses = try await Self.flood(200) { n in
                let token = Self.forger.jwt(["iss": "email|nobody", "iat": h.clock.now().epochSeconds])
                return try await h.post(
                    "/oauth/ro",
                    [
                        "client_id": h.clientID, "grant_type": GrantType.jwtBearer, "id_token": token,
                        "device": "no-such-device-\(n)", "connection": "email",
                    ], headers: Self.from(Self.attacker))
            }
            #expect(statuses == [403: 30, 429: 170], "\(statuses)")
            let audit = try await Self.audited(h, "device_key_refused")
            #expect(audit.rows == 1 && audit.refusals == 30, "\(audit)")
            #expect(try await Self.webhookCalls(h) == 1)
        }
    }

    /// Wrong codes from one address are refusals too: the same limit answers them 429, while
    /// the per-recipient failure budget still stops guessing at one address first.
    @Test("wrong codes at /oauth/token and /oauth/ro share the address's refusal limit")
    func wrongCodeFlood() async throws {
        try await Harness.run(configure: Self.limited) { h in
            let statuses = try await Self.flood(60) { n in
                let user = "user\(n % 20)@example.com"
                return n % 2 == 0
                    ? try await h.post(
                        "/oauth/token",
                        [
                            "grant_type": GrantType.passwordlessOTP, "client_id": h.clientID, "realm": "email",
                            "username": user, "otp": "000000",
                        ], headers: Self.from(Self.attacker))
                    : try await h.post(
                        "/oauth/ro",
                        [
                            "client_id": h.clientID, "connection": "email", "username": user, "password": "000000",
                            "grant_type": GrantType.legacyPassword,
                        ], headers: Self.from(Self.attacker))
            }
            #expect(statuses[429] == 30, "\(statuses)")
        }
    }
}

@Suite("Configuration: the limit on refused grants")
struct GrantRefusalConfigTests {
    @Test("rate_limit.grant_refusals_per_ip_per_minute: 60 by default, set by file key or environment")
    func parse() async throws {
        let noFile = SMSCountryConfigTests.noFile
        let defaults = try await ServerConfiguration.load(flags: noFile, environment: [:]).settings
        #expect(defaults.grantRefusalLimitPerIP == RateLimitRule(limit: 60, windowSeconds: 60))
        let configured = try await ServerConfiguration.load(
            flags: noFile, environment: ["SESAME_RATE_LIMIT_GRANT_REFUSALS_PER_IP_PER_MINUTE": "30"]
        ).settings
        #expect(configured.grantRefusalLimitPerIP == RateLimitRule(limit: 30, windowSeconds: 60))
    }
}
