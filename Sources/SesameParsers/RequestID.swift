/// The `X-Request-Id` a caller sent, when it may be logged as the request's id.
package enum RequestID {
    /// A caller's id is kept when it is short and plain, so it cannot forge log lines.
    package static func usable(_ header: String?) -> String? {
        guard let header, (1...128).contains(header.utf8.count),
            header.utf8.allSatisfy({ $0 < 128 && ($0.isLetterOrDigit || "-_.:".utf8.contains($0)) })
        else { return nil }
        return header
    }
}

extension UInt8 {
    fileprivate var isLetterOrDigit: Bool {
        (48...57).contains(self) || (65...90).contains(self) || (97...122).contains(self)
    }
}
