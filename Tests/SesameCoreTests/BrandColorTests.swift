import Foundation
import SesameCore
import Testing

@Suite("Brand colours and WCAG contrast")
struct BrandColorTests {
    @Test(
        "hex colours parse case-insensitively into lowercase #rrggbb",
        arguments: [
            ("#2453D3", "#2453d3"), ("  #2453d3\n", "#2453d3"), ("#abc", "#aabbcc"), ("#ABC", "#aabbcc"),
        ] as [(String, String)])
    func parses(typed: String, expected: String) {
        #expect(BrandColor(hex: typed)?.hex == expected)
        #expect(BrandColor(hex: typed)?.description == expected)
    }

    @Test(
        "anything but #RGB or #RRGGBB is refused",
        arguments: ["2453d3", "#12345", "#ggg000", "", "#", "#1234567", "# 2453d3", "##abc", "#２４５３ｄ３"])
    func refuses(typed: String) {
        #expect(BrandColor(hex: typed) == nil)
    }

    @Test("encodes as its #rrggbb string and refuses other strings when decoding")
    func codable() throws {
        let color = try #require(BrandColor(hex: "#ABC"))
        let encoded = try JSONEncoder().encode(["brand": color])
        #expect(String(decoding: encoded, as: UTF8.self) == ##"{"brand":"#aabbcc"}"##)
        let decoded = try JSONDecoder().decode([String: BrandColor].self, from: Data(##"{"brand":"#2453D3"}"##.utf8))
        #expect(decoded["brand"] == .defaultLight)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([String: BrandColor].self, from: Data(#"{"brand":"blue"}"#.utf8))
        }
    }

    @Test("contrast ratios match WCAG's worked values")
    func knownContrasts() throws {
        let black = try #require(BrandColor(hex: "#000000"))
        let grey = try #require(BrandColor(hex: "#777777"))
        #expect(abs(BrandColor.contrast(.white, black) - 21) < 0.001)
        #expect(abs(BrandColor.contrast(black, .white) - 21) < 0.001)
        #expect(abs(BrandColor.contrast(.white, .white) - 1) < 0.001)
        // #777777 is the classic near miss: 4.48:1 on white.
        #expect(abs(BrandColor.contrast(grey, .white) - 4.478) < 0.001)
        #expect(abs(BrandColor.contrast(.defaultLight, .lightSurface) - 6.456) < 0.001)
        #expect(abs(BrandColor.contrast(.defaultDark, .darkSurface) - 7.729) < 0.001)
    }

    @Test("the page's constants are the documented colours and the default accents pass AA")
    func constants() {
        #expect(BrandColor.lightSurface == .white)
        #expect(BrandColor.white.hex == "#ffffff")
        #expect(BrandColor.nearBlack.hex == "#111418")
        #expect(BrandColor.darkSurface.hex == "#1c1f24")
        #expect(BrandColor.defaultLight.hex == "#2453d3")
        #expect(BrandColor.defaultDark.hex == "#8fb0ff")
        #expect(BrandColor.contrast(.defaultLight, .lightSurface) >= 4.5)
        #expect(BrandColor.contrast(.defaultDark, .darkSurface) >= 4.5)
    }

    @Test("button text reaches 4.5:1 on every colour of a 16-step sweep")
    func buttonText() throws {
        for red in stride(from: 0, through: 255, by: 17) {
            for green in stride(from: 0, through: 255, by: 17) {
                for blue in stride(from: 0, through: 255, by: 17) {
                    let color = try #require(BrandColor(hex: String(format: "#%02x%02x%02x", red, green, blue)))
                    let text = color.textColor
                    #expect([BrandColor.white, .nearBlack, .black].contains(text))
                    #expect(BrandColor.contrast(color, text) >= 4.5, "\(color) with \(text)")
                }
            }
        }
    }

    @Test("button text is white on dark colours, near-black on pale ones, black on mid-tones")
    func buttonTextChoice() throws {
        let paleYellow = try #require(BrandColor(hex: "#ffe066"))
        let grey = try #require(BrandColor(hex: "#777777"))
        #expect(BrandColor.defaultLight.textColor == .white)
        #expect(paleYellow.textColor == .nearBlack)
        // Neither white (4.48) nor near-black (4.12) reaches 4.5:1 on #777777; black does (4.69).
        #expect(grey.textColor == .black)
    }

    @Test("a colour too faint for a surface gives way to the fallback accent there")
    func accents() throws {
        let paleYellow = try #require(BrandColor(hex: "#ffe066"))
        let navy = try #require(BrandColor(hex: "#1a2b4c"))
        #expect(paleYellow.accent(on: .lightSurface, fallback: .defaultLight) == .defaultLight)
        #expect(paleYellow.accent(on: .darkSurface, fallback: .defaultDark) == paleYellow)
        #expect(navy.accent(on: .darkSurface, fallback: .defaultDark) == .defaultDark)
        #expect(navy.accent(on: .lightSurface, fallback: .defaultLight) == navy)
    }

    @Test("the report explains each substitution to the administrator")
    func report() throws {
        let paleYellow = try #require(BrandColor(hex: "#ffe066"))
        #expect(
            paleYellow.report.warnings == [
                "#ffe066 has 1.3:1 contrast on the light page (WCAG AA needs 4.5:1): "
                    + "links there use the default blue instead."
            ])
        #expect(paleYellow.report.darkContrast >= 4.5)
        #expect(paleYellow.report.buttonTextContrast >= 4.5)

        let navy = try #require(BrandColor(hex: "#1a2b4c"))
        #expect(
            navy.report.warnings == [
                "#1a2b4c has 1.1:1 contrast on the dark page (WCAG AA needs 4.5:1): "
                    + "links there use the default light blue instead."
            ])

        // Ratios are rounded down so a near miss never reads as the 4.5:1 it fails.
        let grey = try #require(BrandColor(hex: "#777777"))
        #expect(grey.report.warnings.count == 2)
        #expect(grey.report.warnings.first?.hasPrefix("#777777 has 4.4:1 contrast on the light page") == true)
    }

    @Test("the default accents draw no warning on their own page")
    func defaultsOnTheirOwnPage() {
        // No colour passes 4.5:1 on both surfaces, so each default is warned about on the other page only.
        #expect(BrandColor.defaultLight.report.warnings.count == 1)
        #expect(BrandColor.defaultLight.report.warnings.allSatisfy { !$0.contains("light page") })
        #expect(BrandColor.defaultDark.report.warnings.count == 1)
        #expect(BrandColor.defaultDark.report.warnings.allSatisfy { !$0.contains("dark page") })
    }
}
