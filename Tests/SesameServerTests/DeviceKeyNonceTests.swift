import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameStorageConformance
import Testing

@Suite("Device-key login: server nonce mode")
struct DeviceKeyNonceTests {
    static func requireNonce(_ h: Harness) async throws {
        _ = try await h.sesame.storage.updateApplication(clientID: h.clientID) { $0.deviceKeyNonceRequired = true }
    }

    func challenge(_ h: Harness) async throws -> String {
        let response = try await h.post("/device-key/challenge", ["client_id": h.clientID])
        #expect(response.status == .ok)
        return try response.decode(DeviceKeyChallengeBody.self).nonce
    }

    @Test("with the setting on, an assertion carrying a fresh nonce signs in")
    func nonceLogin() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            try await Self.requireNonce(h)
            let nonce = try await challenge(h)
            #expect(try await h.deviceLogin(device.assertion(h) { $0["nonce"] = nonce }).status == .ok)
        }
    }

    /// Attack: pre-computing assertions ahead of time on a compromised device; with a server
    /// nonce every assertion must be made after the server asked for it.
    @Test("with the setting on, an assertion without a nonce is refused")
    func nonceMissing() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            try await Self.requireNonce(h)
            let response = try await h.deviceLogin(device.assertion(h))
            #expect(response.status == .forbidden && response.error?.errorDescription.contains("nonce") == true)
            let made = try await h.deviceLogin(device.assertion(h) { $0["nonce"] = "made-up" })
            #expect(made.status == .forbidden)
        }
    }

    /// Attack: reusing one nonce for several assertions (each with a new jti).
    @Test("a nonce is single use, and expires")
    func nonceReuse() async throws {
        try await Harness.run { h in
            let device = try await h.enroll()
            try await Self.requireNonce(h)
            let nonce = try await challenge(h)
            #expect(try await h.deviceLogin(device.assertion(h) { $0["nonce"] = nonce }).status == .ok)
            #expect(try await h.deviceLogin(device.assertion(h) { $0["nonce"] = nonce }).status == .forbidden)
            let stale = try await challenge(h)
            h.clock.advance(by: 121)
            #expect(try await h.deviceLogin(device.assertion(h) { $0["nonce"] = stale }).status == .forbidden)
        }
    }

    @Test("the challenge needs a known client")
    func challengeClient() async throws {
        try await Harness.run { h in
            let missing = try await h.post("/device-key/challenge", [:])
            #expect(missing.status == .unauthorized)
            let unknown = try await h.post("/device-key/challenge", ["client_id": "nope"])
            #expect(unknown.status == .unauthorized)
        }
    }
}
