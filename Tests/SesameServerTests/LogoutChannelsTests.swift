import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameCore
import Testing

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
}
