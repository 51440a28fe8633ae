import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameCore
import Testing

@testable import SesameServer

/// The logout page's front-channel frames, `prompt=create` on the hosted page, and the
/// management API's logout URIs.
@Suite("Logout channels and the sign-up path")
struct LogoutChannelsTests {
    static let frontchannel = "https://spa.example.com/frontchannel?tenant=1"

    /// The SPA (with a front-channel logout page) signed in on the hosted page.
    static func signedIn(_ h: Harness) async throws -> String {
        try await BrowserSessionTests.seedSPA(h)
        _ = try await h.sesame.storage.updateApplication(clientID: BrowserSessionTests.spaID) {
            $0.frontchannelLogoutURI = frontchannel
        }
        let (cookie, _) = try await BrowserSessionTests.signIn(
            h, BrowserSessionTests.authorize(BrowserSessionTests.spaID, BrowserSessionTests.spa))
        return cookie
    }

    @Test("logout frames each front-channel page with iss and sid, then continues to the return URL")
    func frontchannelFrames() async throws {
        try await Harness.run { h in
            let cookie = try await Self.signedIn(h)
            let sid = try #require(try await h.sesame.sessions.resume(String(cookie.split(separator: "=")[1]))?.0.id)
            let out = try await h.get(
                "/v2/logout?client_id=\(BrowserSessionTests.spaID)&returnTo=https%3A%2F%2Fspa.example.com%2Fbye",
                headers: [.cookie: cookie])
            #expect(out.status == .ok)
            #expect(out.text.contains("src=\"https://spa.example.com/frontchannel?tenant=1&amp;iss="))
            #expect(out.text.contains("login.example.com") && out.text.contains("&amp;sid=\(sid)\""))
            #expect(out.text.contains("data-continue=\"https://spa.example.com/bye\""))
            #expect(out.text.contains("/assets/logout.js"))
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
        }
    }

    /// Attack: the logout page used to frame arbitrary sites (a page that frames whatever it is
    /// told could be turned into a clickjacking or tracking vehicle). Its policy frames only the
    /// origins of the front-channel pages operators registered, and nothing frames it.
    @Test("frame injection: the logout page's CSP frames only the registered front-channel origins")
    func frontchannelPolicy() async throws {
        try await Harness.run { h in
            let cookie = try await Self.signedIn(h)
            let out = try await h.get(
                "/v2/logout?client_id=\(BrowserSessionTests.spaID)&returnTo=https%3A%2F%2Fspa.example.com%2Fbye",
                headers: [.cookie: cookie])
            let policy = try #require(out.headers[.contentSecurityPolicy])
            #expect(policy.contains("frame-src https://spa.example.com;"))
            #expect(policy.contains("frame-ancestors 'none'"))
            let plain = try await h.get("/v2/logout")
            #expect(plain.headers[.contentSecurityPolicy]?.contains("frame-src") == false, "no frames without a session")
        }
    }

    @Test("prompt=create and screen_hint=signup show the sign-up path, even with a session")
    func promptCreate() async throws {
        try await Harness.run { h in
            let cookie = try await Self.signedIn(h)
            for extra in [["prompt": "create"], ["screen_hint": "signup"]] {
                let page = try await h.get(
                    BrowserSessionTests.authorize(BrowserSessionTests.spaID, BrowserSessionTests.spa, extra),
                    headers: [.cookie: cookie])
                #expect(page.status == .ok && page.text.contains("id=\"signup-heading\""), "\(extra)")
                #expect(!page.text.contains("passkey-form"), "no passkey sign-in for a new account")
            }
            let both = try await h.get(
                BrowserSessionTests.authorize(BrowserSessionTests.spaID, BrowserSessionTests.spa, ["prompt": "none create"]))
            #expect(MagicLinkTests.query(both.headers[.location])["error"] == "invalid_request")
        }
    }

    @Test("a sign-up answers the application with a code once the code is typed")
    func signUpCompletes() async throws {
        try await Harness.run { h in
            try await BrowserSessionTests.seedSPA(h)
            let (_, location) = try await BrowserSessionTests.signIn(
                h, BrowserSessionTests.authorize(BrowserSessionTests.spaID, BrowserSessionTests.spa, ["prompt": "create"]))
            let answer = MagicLinkTests.query(location)
            #expect(answer["code"] != nil && answer["iss"] == "https://login.example.com/")
        }
    }

    /// Attack: server-side request forgery through a back-channel logout URI. Whoever sets an
    /// application's URI could aim the server's POST at a cloud metadata service or a private
    /// admin port. Loopback is allowed (an application on the same machine); every other
    /// private address stays refused unless `webhook_allowed_hosts` lists it.
    @Test("SSRF: logout tokens reach loopback, never metadata services or private networks")
    func logoutTokenSSRF() throws {
        let policy = DeliveryFactory.logoutTokenPolicy(WebhookAddressPolicy())
        for refused in ["169.254.169.254", "10.0.0.5", "192.168.1.1", "fd00::1"] {
            #expect(!policy.permits(host: refused, address: try #require(IPAddress(refused))), "\(refused)")
        }
        for allowed in ["127.0.0.1", "::1", "93.184.216.34"] {
            #expect(policy.permits(host: allowed, address: try #require(IPAddress(allowed))), "\(allowed)")
        }
        let listed = DeliveryFactory.logoutTokenPolicy(WebhookAddressPolicy.parse(["10.0.0.0/8"]).policy)
        #expect(listed.permits(host: "10.0.0.5", address: try #require(IPAddress("10.0.0.5"))))
    }

    @Test("management API: Auth0's oidc_logout and OIDC's field set the one URI; bad ones are a 400")
    func managementLogoutURIs() async throws {
        try await Harness.run { h in
            let admin = try await ManagementAPITests.token(h)
            let created = try await h.post(
                "/api/v2/clients",
                [
                    "name": "RP", "app_type": "regular_web",
                    "oidc_logout": ["backchannel_logout_urls": ["https://rp.example.com/logout"]],
                    "frontchannel_logout_uri": "https://rp.example.com/front",
                ], headers: admin)
            #expect(created.status == .created)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(created.text.utf8)) as? [String: Any])
            #expect(body["backchannel_logout_uri"] as? String == "https://rp.example.com/logout")
            #expect(body["frontchannel_logout_uri"] as? String == "https://rp.example.com/front")
            let id = try #require(body["client_id"] as? String)
            for bad: [String: Any] in [
                ["backchannel_logout_uri": "javascript:alert(1)"], ["frontchannel_logout_uri": "http://rp.example.com/x"],
                ["oidc_logout": ["backchannel_logout_urls": ["https://a.example/1", "https://a.example/2"]]],
                ["oidc_logout": ["unknown": true]],
            ] {
                let refused = try await h.patch("/api/v2/clients/\(id)", bad, headers: admin)
                #expect(refused.status == .badRequest, "\(bad)")
            }
            let cleared = try await h.patch(
                "/api/v2/clients/\(id)", ["oidc_logout": ["backchannel_logout_urls": [String]()]], headers: admin)
            #expect(!cleared.text.contains("backchannel_logout_uri"))
        }
    }
}
