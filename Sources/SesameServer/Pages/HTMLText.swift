/// Text put into HTML.
enum HTMLText {
    /// `text` escaped for element content and quoted attributes: `&`, `<`, `>`, `"` and `'`,
    /// character by character, which is exactly what swift-mustache does for `{{name}}` in an
    /// HTML template (a message's code or link is put into a rendered part this way).
    static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { "<>&\"'".utf8.contains($0) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
