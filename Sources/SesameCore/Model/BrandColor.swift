import Foundation

/// An application's brand colour for the hosted login page, checked against WCAG 2.x contrast.
///
/// The page fills its primary button with the colour and uses it for links, outlines and focus
/// rings. A colour an administrator likes is not always readable, so the page asks this type
/// which text colour goes on the button (``textColor``) and whether the colour itself can be an
/// accent on each card background (``accent(on:fallback:)``); ``report`` explains the outcome
/// to the administrator. Encoded as its `#rrggbb` string.
public struct BrandColor: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Red, green and blue channels, 0–255 (sRGB).
    let red: UInt8
    let green: UInt8
    let blue: UInt8

    /// WCAG AA's minimum for normal-size text, which links and button labels are.
    public static let minimumContrast = 4.5

    /// Pure white: the button text on dark colours and the light page's card background.
    public static let white = BrandColor(red: 0xff, green: 0xff, blue: 0xff)

    /// The page's body text colour: the button text on light colours.
    public static let nearBlack = BrandColor(red: 0x11, green: 0x14, blue: 0x18)

    /// Pure black: button text only for the mid-tones where neither white nor ``nearBlack``
    /// reaches 4.5:1 (relative luminance about 0.18–0.21, e.g. `#777777`).
    public static let black = BrandColor(red: 0x00, green: 0x00, blue: 0x00)

    /// The light page's card background.
    public static let lightSurface = white

    /// The dark page's card background.
    public static let darkSurface = BrandColor(red: 0x1c, green: 0x1f, blue: 0x24)

    /// The accent the light page uses when the brand colour is too pale for it (6.5:1 on white).
    public static let defaultLight = BrandColor(red: 0x24, green: 0x53, blue: 0xd3)

    /// The accent the dark page uses when the brand colour is too dark for it (7.7:1 on ``darkSurface``).
    public static let defaultDark = BrandColor(red: 0x8f, green: 0xb0, blue: 0xff)

    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses `#RRGGBB` or `#RGB`, case-insensitively, ignoring surrounding whitespace.
    ///
    /// The `#` is required so that a value is unmistakably a hex colour and not, say, a colour
    /// name or a number typed into the wrong field. Returns nil for anything else.
    /// - Parameter hex: The colour as an administrator typed it, e.g. `#2453D3` or `#abc`.
    public init?(hex: String) {
        let trimmed = hex.trimmingWhitespaceAndNewlines()
        guard trimmed.hasPrefix("#") else { return nil }
        // Bytes, not Characters: `Character.hexDigitValue` also accepts full-width digits.
        var nibbles: [UInt8] = []
        for byte in trimmed.utf8.dropFirst() {
            guard let nibble = Self.nibble(byte) else { return nil }
            nibbles.append(nibble)
        }
        switch nibbles.count {
        case 3:
            // `#abc` is shorthand for `#aabbcc`: each digit repeated, i.e. times 17.
            self.init(red: nibbles[0] * 17, green: nibbles[1] * 17, blue: nibbles[2] * 17)
        case 6:
            self.init(
                red: nibbles[0] << 4 | nibbles[1], green: nibbles[2] << 4 | nibbles[3],
                blue: nibbles[4] << 4 | nibbles[5])
        default:
            return nil
        }
    }

    /// The value of one ASCII hex digit, or nil when `byte` is not one.
    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The colour as lowercase `#rrggbb`, the one form it is stored and shown in.
    public var hex: String {
        "#"
            + [red, green, blue].map { channel in
                let digits = String(channel, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }.joined()
    }

    /// The colour as lowercase `#rrggbb`.
    public var description: String { hex }

    /// Decodes the colour from a `#RRGGBB` or `#RGB` string.
    /// - Parameter decoder: The decoder to read a single string from.
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a colour.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let color = BrandColor(hex: string) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(string)' is not a colour like #2453d3 or #abc")
        }
        self = color
    }

    /// Encodes the colour as its lowercase `#rrggbb` string.
    /// - Parameter encoder: The encoder to write a single string to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    /// Relative luminance as WCAG 2.x defines it: 0 for black, 1 for white.
    ///
    /// Uses the 0.04045 sRGB threshold (the sRGB standard's; WCAG 2.0 printed 0.03928, which
    /// makes no difference at 8 bits per channel).
    public var relativeLuminance: Double {
        0.2126 * Self.linear(red) + 0.7152 * Self.linear(green) + 0.0722 * Self.linear(blue)
    }

    /// One sRGB channel converted to linear light.
    private static func linear(_ channel: UInt8) -> Double {
        let value = Double(channel) / 255
        return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    /// The WCAG contrast ratio between two colours, from 1 (identical) to 21 (black on white).
    ///
    /// Symmetric: the lighter colour is always the numerator.
    /// - Parameters:
    ///   - a: One colour.
    ///   - b: The other colour.
    /// - Returns: (L1 + 0.05) / (L2 + 0.05), where L1 is the lighter relative luminance.
    public static func contrast(_ a: BrandColor, _ b: BrandColor) -> Double {
        let first = a.relativeLuminance
        let second = b.relativeLuminance
        return (max(first, second) + 0.05) / (min(first, second) + 0.05)
    }

    /// The label colour for a button filled with this colour: at least 4.5:1 for every colour.
    ///
    /// White or ``nearBlack``, whichever contrasts more. Neither reaches 4.5:1 for mid-tones
    /// (e.g. `#777777` gets 4.48 and 4.11), so those fall back to pure ``black``, and one of
    /// white and black always reaches 4.58:1.
    public var textColor: BrandColor {
        let onWhite = Self.contrast(self, .white)
        let onNearBlack = Self.contrast(self, .nearBlack)
        if max(onWhite, onNearBlack) >= Self.minimumContrast {
            return onWhite >= onNearBlack ? .white : .nearBlack
        }
        return onWhite >= Self.contrast(self, .black) ? .white : .black
    }

    /// The colour for links, outlines and focus rings on `surface`.
    ///
    /// This colour when it reaches WCAG AA for normal text (4.5:1) on `surface`, otherwise `fallback`.
    /// - Parameters:
    ///   - surface: The background the accent is drawn on, e.g. ``lightSurface``.
    ///   - fallback: What to use instead when this colour is too faint there, e.g. ``defaultLight``.
    public func accent(on surface: BrandColor, fallback: BrandColor) -> BrandColor {
        Self.contrast(self, surface) >= Self.minimumContrast ? self : fallback
    }

    /// How this colour fares on the hosted page, for the administrator who chose it.
    public var report: ContrastReport {
        ContrastReport(color: self)
    }

    /// Contrast of a brand colour against the page's backgrounds and its own button label.
    ///
    /// No colour reaches 4.5:1 on both surfaces (white needs relative luminance at most 0.18,
    /// ``BrandColor/darkSurface`` at least 0.24), so every colour gets a warning for one page or
    /// both: the warnings say where the page substitutes a default, not that the choice is wrong.
    public struct ContrastReport: Sendable, Equatable {
        /// Contrast against ``BrandColor/lightSurface``.
        public let lightContrast: Double
        /// Contrast against ``BrandColor/darkSurface``.
        public let darkContrast: Double
        /// Contrast between the colour and its ``BrandColor/textColor`` on the button.
        public let buttonTextContrast: Double
        /// Sentences for an administrator about where the page substitutes a default accent;
        /// empty when the colour works everywhere.
        public let warnings: [String]

        init(color: BrandColor) {
            lightContrast = BrandColor.contrast(color, .lightSurface)
            darkContrast = BrandColor.contrast(color, .darkSurface)
            buttonTextContrast = BrandColor.contrast(color, color.textColor)
            var warnings: [String] = []
            if lightContrast < BrandColor.minimumContrast {
                warnings.append(Self.warning(color, lightContrast, page: "light", replacement: "blue"))
            }
            if darkContrast < BrandColor.minimumContrast {
                warnings.append(Self.warning(color, darkContrast, page: "dark", replacement: "light blue"))
            }
            // No sentence for the button: `textColor` always reaches 4.5:1.
            self.warnings = warnings
        }

        private static func warning(_ color: BrandColor, _ ratio: Double, page: String, replacement: String) -> String {
            "\(color.hex) has \(formatted(ratio)):1 contrast on the \(page) page (WCAG AA needs 4.5:1): "
                + "links there use the default \(replacement) instead."
        }

        /// One decimal, rounded down: 4.48 must not read as the "4.5:1" it fails to reach.
        static func formatted(_ ratio: Double) -> String {
            let tenths = Int((ratio * 10).rounded(.down))
            return "\(tenths / 10).\(tenths % 10)"
        }
    }
}
