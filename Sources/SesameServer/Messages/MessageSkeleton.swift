import SesameCore
import Synchronization

/// A rendered message part with gaps where its code or link goes.
///
/// Everything a template sees but the secret (the application's name, colours and logo, the
/// connection, the lifetime, the language) is the same for every message of an application,
/// so each part is rendered once and only the secret is put in afterwards. Rendering the
/// email's layout through swift-mustache, each variable found by dynamic casts, was about a
/// tenth of an email-code login's instructions (docs/performance.md).
struct MessageSkeleton: Sendable, Equatable {
    /// The text before, between and after the gaps: one more than there are gaps.
    let pieces: [String]
    /// For each gap, whether the secret goes in HTML-escaped (`{{code}}` in an HTML part) or as it is.
    let escaped: [Bool]

    /// The part with `secret` in every gap.
    func filled(with secret: String) -> String {
        let escapedSecret = escaped.contains(true) ? HTMLText.escaped(secret) : secret
        var text = pieces[0]
        for (gap, isEscaped) in escaped.enumerated() {
            text += isEscaped ? escapedSecret : secret
            text += pieces[gap + 1]
        }
        return text
    }

    /// Two stand-ins for the secret. Each holds every character HTML escaping changes, so an
    /// escaped gap can be told from a plain one, and mixed case that is no palindrome, so a
    /// template that transforms the secret (`uppercased`, `capitalized`, `reversed`, …)
    /// renders something no gap explains. A template that holds the first as text fails the
    /// check with the second, so they need not be secret.
    static let standIns = ("q<&'\">Z-first-stand-in-xY", "q<&'\">Z-second-stand-in-wV")

    /// Learns the skeleton of a part from `render`, which renders it with the given secret.
    /// It renders with one stand-in, cuts the output where the stand-in appears, and checks that
    /// filling the gaps with the other stand-in gives exactly what rendering with it gives.
    /// - Returns: nil when a template does more with the secret than show it; such a part
    ///   is rendered in full for every message.
    static func learn(_ render: (String) throws -> String) rethrows -> MessageSkeleton? {
        let (first, second) = standIns
        let skeleton = cut(try render(first), at: first)
        return try render(second).utf8.elementsEqual(skeleton.filled(with: second).utf8) ? skeleton : nil
    }

    /// `text` cut wherever `standIn` appears, as it is or HTML-escaped.
    static func cut(_ text: String, at standIn: String) -> MessageSkeleton {
        let escapedStandIn = HTMLText.escaped(standIn)
        var (pieces, escaped) = ([String](), [Bool]())
        var rest = text[...]
        while true {
            let plain = rest.firstRange(of: standIn)
            let html = rest.firstRange(of: escapedStandIn)
            guard let range = [plain, html].compactMap({ $0 }).min(by: { $0.lowerBound < $1.lowerBound }) else { break }
            pieces.append(String(rest[..<range.lowerBound]))
            escaped.append(range == html)
            rest = rest[range.upperBound...]
        }
        pieces.append(String(rest))
        return MessageSkeleton(pieces: pieces, escaped: escaped)
    }
}

/// Skeletons of message parts, by template and by every value a template sees but the secret.
final class MessageSkeletons: Sendable {
    /// What a part's rendering depends on, besides its secret.
    struct Key: Hashable, Sendable {
        /// ``ParsedTemplates`` serial numbers: a changed override is another template.
        var template: Int
        var layout: Int?
        var language, connection, applicationName: String
        var applicationLogoURL, applicationBrandColor: String?
        var lifetimeMinutes: Int
        var kind: MessageContent.Kind

        /// The key of a part of `content`; nil unless it carries exactly one secret.
        init?(_ content: MessageContent, template: Int, layout: Int?, language: String) {
            guard (content.code == nil) != (content.link == nil) else { return nil }
            (self.template, self.layout, self.language) = (template, layout, language)
            (connection, applicationName) = (content.connection, content.applicationName)
            (applicationLogoURL, applicationBrandColor) = (content.applicationLogoURL, content.applicationBrandColor)
            (lifetimeMinutes, kind) = (content.lifetimeMinutes, content.kind)
        }
    }

    /// nil for a part whose template does more with the secret than show it.
    private let entries = Mutex<[Key: MessageSkeleton?]>([:])
    /// Applications, connections and languages multiply; past this many parts the cache
    /// starts afresh, so it stays within a few megabytes.
    private let limit: Int

    init(limit: Int = 256) {
        self.limit = limit
    }

    /// The skeleton for `key`, learnt by `learn` the first time.
    func skeleton(for key: Key, learn: () throws -> MessageSkeleton?) rethrows -> MessageSkeleton? {
        if let known = entries.withLock({ $0[key] }) { return known }
        let learnt = try learn()
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll() }
            entries[key] = .some(learnt)
        }
        return learnt
    }
}
