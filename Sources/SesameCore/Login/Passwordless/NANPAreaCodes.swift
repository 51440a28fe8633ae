/// The countries of the North American Numbering Plan, told apart by area code: they all share
/// the calling code `+1`, so without this table an allow-list of `US` would also text Jamaica
/// (`+1 876`), the Dominican Republic (`+1 809`) or the Turks and Caicos (`+1 649`), where
/// premium-rate fraud on `+1` numbers concentrates.
enum NANPAreaCodes {
    /// The country (ISO 3166-1 alpha-2) of a `+1` number, from its area code: `US` for every
    /// geographic area code not in the table, nil for non-geographic codes (toll-free `8xx`,
    /// premium `900`, personal `5xx`, …), which belong to no one country.
    static func country(ofNational digits: some StringProtocol) -> String? {
        let area = String(digits.prefix(3))
        guard area.count == 3, let first = area.first, first >= "2" else { return nil }
        if let country = byAreaCode[area] { return country }
        // N00 and N11 codes are services (800 toll-free, 900 premium-rate), not places.
        if nonGeographic.contains(area) || area.hasSuffix("00") || area.hasSuffix("11") { return nil }
        return "US"
    }

    /// Whether `iso` is a country of the plan (so an allow-list entry of it names area codes).
    static func isMember(_ iso: String) -> Bool { iso == "US" || members.contains(iso) }

    /// Every non-US member, with its area codes.
    static let areaCodes: [String: [String]] = [
        "CA": [
            "204", "226", "236", "249", "250", "257", "263", "289", "306", "343", "354", "365", "367", "368", "382",
            "403", "416", "418", "428", "431", "437", "438", "450", "468", "474", "506", "514", "519", "548", "579",
            "581", "584", "587", "600", "604", "613", "622", "639", "647", "672", "683", "705", "709", "742", "753",
            "778", "780", "782", "807", "819", "825", "867", "873", "879", "902", "905", "942",
        ],
        "AG": ["268"], "AI": ["264"], "AS": ["684"], "BB": ["246"], "BM": ["441"], "BS": ["242"], "DM": ["767"],
        "DO": ["809", "829", "849"], "GD": ["473"], "GU": ["671"], "JM": ["658", "876"], "KN": ["869"], "KY": ["345"],
        "LC": ["758"], "MP": ["670"], "MS": ["664"], "PR": ["787", "939"], "SX": ["721"], "TC": ["649"],
        "TT": ["868"], "VC": ["784"], "VG": ["284"], "VI": ["340"],
    ]

    /// Area codes that are not tied to a place (`N00` service codes such as 800 and 900, the
    /// toll-free `8xx` codes, personal communications `5xx`, and the carrier codes).
    static let nonGeographic: Set<String> = [
        "211", "311", "411", "456", "500", "511", "521", "522", "523", "524", "525", "526", "527", "528", "529",
        "532", "533", "544", "555", "566", "577", "588", "611", "700", "710", "711", "811", "833", "844", "855",
        "866", "877", "888", "900", "911", "950", "958", "959", "976",
    ]

    private static let members = Set(areaCodes.keys)
    private static let byAreaCode: [String: String] = Dictionary(
        uniqueKeysWithValues: areaCodes.flatMap { country, codes in codes.map { ($0, country) } })
}
