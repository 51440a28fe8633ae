import SesameAPI

extension [String: JSONObjectReader.Value] {
    /// `.some(nil)` when the member is absent or null, as `JSONDecoder` reads an optional
    /// string; nil when it is of another type (the caller then lets `JSONDecoder` say so).
    func optionalString(_ key: String) -> String?? {
        switch self[key] {
        case .string(let value)?: .some(value)
        case nil, .null?: .some(nil)
        default: nil
        }
    }
}
