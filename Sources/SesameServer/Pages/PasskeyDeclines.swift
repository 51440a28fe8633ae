import Crypto
import Foundation
import Hummingbird
import SesameCore

/// `sesame_passkey_later`: who said "Not now" to the passkey offer in this browser, each for
/// 30 days, so the offer does not come back after every code login. The cookie is signed (a
/// page cannot be made to skip the offer for someone else's choice) and names people only by
/// a digest of their user id; `__Host-` and `Secure` on https like the other cookies.
struct PasskeyDeclines: Sendable {
    let cookie: BrowserCookie
    let tokens: FormTokens
    let clock: any SesameClock

    /// How long a "Not now" lasts.
    static let lifetime = 30 * 24 * 3600
    /// The most people one browser remembers (a shared computer); the oldest choice goes first.
    static let capacity = 8

    init(settings: LoginSettings, tokens: FormTokens, clock: any SesameClock) {
        cookie = BrowserCookie("sesame_passkey_later", settings: settings, lifetime: Self.lifetime)
        self.tokens = tokens
        self.clock = clock
    }

    /// Whether the person `userID` said "Not now" in `request`'s browser within 30 days.
    func declined(in request: Request, userID: String) -> Bool {
        entries(in: request)[Self.digest(userID)] != nil
    }

    /// The cookie that remembers `userID`'s "Not now" too, from now.
    func declining(_ userID: String, in request: Request) -> Cookie {
        var entries = entries(in: request)
        entries[Self.digest(userID)] = clock.now().epochSeconds + Int64(Self.lifetime)
        let kept = entries.sorted { $0.value > $1.value }.prefix(Self.capacity)
        return cookie.setting(tokens.signed(kept.map { "\($0.key) \($0.value)" }.joined(separator: ",")))
    }

    /// The live choices the browser's cookie holds: digest to the moment each ends.
    private func entries(in request: Request) -> [String: Int64] {
        guard let value = tokens.verified(cookie.secret(in: request)) else { return [:] }
        let now = clock.now().epochSeconds
        var entries: [String: Int64] = [:]
        for entry in value.split(separator: ",") {
            let parts = entry.split(separator: " ")
            guard parts.count == 2, let ends = Int64(parts[1]), ends > now else { continue }
            entries[String(parts[0])] = ends
        }
        return entries
    }

    private static func digest(_ userID: String) -> String {
        SHA256.hash(data: Data(userID.utf8)).prefix(9).map { String(format: "%02x", $0) }.joined()
    }
}
