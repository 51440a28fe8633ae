import Foundation

/// Chooses the language of a hosted page: the first of the application's `ui_locales`
/// (OpenID Connect Core §3.1.2.1, space-separated, in order of preference) that the server has,
/// then the browser's `Accept-Language` by quality, then English. A regional tag (`fr-CA`)
/// matches its language (`fr`) when the server has no file for the region.
package enum PageLanguage {
    /// The language of a page when nothing the person asked for is available.
    package static let fallback = "en"

    package static func choose(uiLocales: String?, acceptLanguage: String?, available: Set<String>) -> String {
        let wanted = (uiLocales ?? "").split(separator: " ").map(String.init) + ranked(acceptLanguage ?? "")
        return match(wanted, available: available) ?? fallback
    }

    /// The first of `wanted` (language tags, best first) that is `available`, itself or by
    /// its primary language (`fr-CA` → `fr`), else by a regional file of that language
    /// (`pt` or `pt-PT` → `pt-br` when that is the only Portuguese).
    package static func match(_ wanted: [String], available: Set<String>) -> String? {
        for tag in wanted {
            let tag = tag.lowercased().replacingOccurrences(of: "_", with: "-")
            if available.contains(tag) { return tag }
            guard let primary = tag.split(separator: "-").first.map(String.init) else { continue }
            if available.contains(primary) { return primary }
            if let regional = available.filter({ $0.hasPrefix(primary + "-") }).min() { return regional }
        }
        return nil
    }

    /// The languages written right to left that a page may be in (`dir="rtl"`).
    package static let rightToLeft: Set<String> = ["ar", "fa", "he", "ur"]

    /// `rtl` or `ltr`, for `<html dir>`.
    package static func direction(of language: String) -> String {
        let primary = language.split(separator: "-").first.map(String.init) ?? language
        return rightToLeft.contains(primary) ? "rtl" : "ltr"
    }

    /// `Accept-Language` tags, best first (RFC 9110 §12.5.4); `q=0` means "not this one".
    package static func ranked(_ header: String) -> [String] {
        var tags: [(tag: String, quality: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").prefix(32).enumerated() {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first, !tag.isEmpty, tag != "*" else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if quality > 0 { tags.append((tag, quality, order)) }
        }
        return tags.sorted { ($0.quality, -$0.order) > ($1.quality, -$1.order) }.map(\.tag)
    }
}
