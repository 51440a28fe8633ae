import Foundation
import SesameClientCore
import Testing

/// The testable parts of Lock's screens: the countdown, what counts as an address, the
/// country picker and the brand colour.
@Suite("SesameClient: Lock's screens, without a screen")
struct LockSupportTests {
    @Test("the countdown's arithmetic and titles")
    func countdownArithmetic() {
        let now = Date(timeIntervalSince1970: 1000)
        #expect(ResendCountdown.seconds(until: nil, now: now) == 0)
        #expect(ResendCountdown.seconds(until: now.addingTimeInterval(-5), now: now) == 0)
        #expect(ResendCountdown.seconds(until: now.addingTimeInterval(0.2), now: now) == 1)
        #expect(ResendCountdown.availableAt(sentAt: now, cooldown: 30, remaining: 3, resetsAt: now + 600) == now + 30)
        #expect(ResendCountdown.availableAt(sentAt: now, cooldown: 30, remaining: 0, resetsAt: now + 600) == now + 600)
        #expect(ResendCountdown.availableAt(sentAt: now, cooldown: 30, remaining: 0, resetsAt: now + 10) == now + 30)
        #expect(ResendCountdown.clock(27) == "0:27" && ResendCountdown.clock(65) == "1:05" && ResendCountdown.clock(-3) == "0:00")
        #expect(
            ResendCountdown.buttonTitle(seconds: 27) == "Resend in 0:27"
                && ResendCountdown.buttonTitle(seconds: 0) == "Resend code")
    }

    @Test("what counts as an email address or a phone number")
    func identifierValidation() {
        for email in ["ana@example.com", "a.b+c@mail.example.co.uk"] { #expect(LoginIdentifier.kind(of: email) == .email) }
        for phone in ["+14155550123", "+447700900123"] { #expect(LoginIdentifier.kind(of: phone) == .phoneNumber) }
        for bad in [
            "", "ana", "ana@", "@example.com", "ana@example", "a@b@c.com", "ana @example.com", "+0123456789", "+12",
            "+1415abc0123",
        ] {
            #expect(LoginIdentifier.kind(of: bad) == .invalid, "\(bad)")
        }
        #expect(LoginIdentifier.normalized(" +44 (0) 7700-900.123 ") == "+4407700900123")
    }

    @Test("the country picker: flags, search, and national numbers to E.164")
    func countries() throws {
        let us = try #require(PhoneCountry.country(forRegion: "us"))
        #expect(us.flag == "🇺🇸" && us.dialingCode == "1")
        #expect(us.e164("(415) 555-0123") == "+14155550123")
        let uk = try #require(PhoneCountry.country(forRegion: "GB"))
        #expect(uk.e164("07700 900123") == "+447700900123")
        #expect(PhoneCountry.country(forRegion: "IT")?.e164("06 1234 5678") == "+390612345678")
        #expect(uk.e164("+14155550123") == "+14155550123" && uk.e164("12") == nil && uk.e164("07700 9OO123") == nil)
        #expect(PhoneCountry.matching("+44").map(\.isoCode) == ["GB"])
        #expect(PhoneCountry.matching("swi").map(\.isoCode) == ["CH"])
        #expect(PhoneCountry.matching("").count == PhoneCountry.all.count)
        #expect(Set(PhoneCountry.all.map(\.isoCode)).count == PhoneCountry.all.count)
        #expect(PhoneCountry.all.map(\.name) == PhoneCountry.all.map(\.name).sorted())
    }

    @Test("brand colours from hex, and the text colour on them")
    func brandColor() throws {
        let blue = try #require(BrandColor(hex: "#0A84FF"))
        #expect(abs(blue.red - 10 / 255) < 1e-9 && abs(blue.blue - 1) < 1e-9)
        #expect(BrandColor(hex: "08f") == BrandColor(hex: "#0088ff"))
        for bad in ["", "#12", "#12345", "zzzzzz", "#0A84FF00"] { #expect(BrandColor(hex: bad) == nil, "\(bad)") }
        #expect(BrandColor(hex: "#FFD60A")?.prefersDarkText == true)
        #expect(BrandColor(hex: "#1C1C1E")?.prefersDarkText == false && BrandColor(hex: "#0040DD")?.prefersDarkText == false)
    }
}
