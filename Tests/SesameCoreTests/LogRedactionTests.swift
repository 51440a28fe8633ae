import Foundation
import SesameCore
import Testing

/// Attack (data exposure): info logs shipped to a log service carried every address that
/// asked for a code, a ready list of who uses the service.
@Suite("Personal data in logs")
struct LogRedactionTests {
    @Test(
        "email addresses and phone numbers in log lines are masked",
        arguments: [
            ("rate limit start:to:email:ana@example.com", "rate limit start:to:email:a***@example.com"),
            ("failure budget sms:+14155550123", "failure budget sms:+14*******23"),
            ("two: bob.smith+tag@mail.example.org and +447700900123", "two: b***@mail.example.org and +44********23"),
            ("nothing personal: family 3f2a", "nothing personal: family 3f2a"),
        ])
    func masking(line: String, expected: String) {
        #expect(LogRedaction.mask(line) == expected)
    }
}
