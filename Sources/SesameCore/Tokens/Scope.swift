/// An OAuth scope: space-separated names, kept in request order without duplicates.
public struct Scope: Sendable, Equatable, CustomStringConvertible {
    /// The names in order.
    public private(set) var names: [String]

    /// Parses a scope string; nil or blank gives `openid`, Auth0's minimum for a login.
    public init(_ raw: String?) {
        var seen = Set<String>()
        names = (raw ?? "").split(whereSeparator: { $0 == " " || $0 == "+" }).map(String.init)
            .filter { seen.insert($0).inserted }
        if names.isEmpty { names = ["openid"] }
    }

    /// Whether `name` was granted.
    public func contains(_ name: String) -> Bool { names.contains(name) }

    /// Whether every name of `other` is in this scope.
    public func covers(_ other: Scope) -> Bool { other.names.allSatisfy(contains) }

    /// Drops the names `refused` picks, keeping the order of the rest.
    public mutating func remove(where refused: (String) -> Bool) { names.removeAll(where: refused) }
    /// This scope without `name` (`openid` when nothing else is left, as for a blank scope).
    public func removing(_ name: String) -> Scope {
        Scope(names.filter { $0 != name }.joined(separator: " "))
    }

    public var description: String { names.joined(separator: " ") }
}
