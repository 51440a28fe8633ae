import Foundation

/// An app's brand colour as Lock takes it (`#0A84FF`, `0a84ff`, `#08f`): the components a
/// SwiftUI `Color` or `UIColor` is made from, and whether text on it should be dark.
public struct BrandColor: Sendable, Equatable {
    /// Red, green and blue from 0 to 1.
    public let red: Double
    public let green: Double
    public let blue: Double

    /// The colour of a hex text, or nil when it is not 3 or 6 hex digits (after an optional `#`).
    public init?(hex: String) {
        var digits = Substring(hex.trimmingCharacters(in: .whitespaces))
        if digits.hasPrefix("#") { digits = digits.dropFirst() }
        guard digits.count == 3 || digits.count == 6, digits.allSatisfy(\.isHexDigit),
            let value = UInt32(digits.count == 3 ? String(digits.flatMap { [$0, $0] }) : String(digits), radix: 16)
        else { return nil }
        red = Double((value >> 16) & 0xFF) / 255
        green = Double((value >> 8) & 0xFF) / 255
        blue = Double(value & 0xFF) / 255
    }

    /// True when dark text reads better on this colour than white (WCAG relative luminance
    /// above the point where both contrasts are equal).
    public var prefersDarkText: Bool {
        func linear(_ channel: Double) -> Double {
            channel <= 0.03928 ? channel / 12.92 : pow((channel + 0.055) / 1.055, 2.4)
        }
        let luminance = 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        return luminance > 0.179
    }
}
