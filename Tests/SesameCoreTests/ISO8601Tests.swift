import Foundation
import Testing

@testable import SesameCore

/// `ISO8601.string` writes dates itself; a date written differently from Foundation would
/// change `updated_at` in every ID token.
@Suite("ISO 8601 timestamps")
struct ISO8601Tests {
    @Test("writes every date as Foundation's format style writes it")
    func matchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        let edges: [Double] = [
            0, -0.0005, -1, 0.9995, 1_480_950_940.545, 951_782_400, 4_107_542_400, -12_212_553_600, -12_212_553_600.001,
            253_402_300_799.999, 253_402_300_800, 1_700_000_000.123_456,
        ]
        let random = (0..<20_000).map { _ in Double.random(in: -15_000_000_000...260_000_000_000, using: &generator) }
        let differing = (edges + random).map { Date(timeIntervalSince1970: $0) }
            .filter { ISO8601.string($0) != ISO8601.foundationString($0) }
        let shown = differing.prefix(4).map { "\(ISO8601.foundationString($0)) written \(ISO8601.string($0))" }
        #expect(differing.count == 0, "\(differing.count) differ: \(shown)")
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1_480_950_940.545)) == "2016-12-05T15:15:40.545Z")
    }
}
