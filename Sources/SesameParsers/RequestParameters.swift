package import Foundation
package import SesameAPI
package import SesameCore

/// The parameters of a request body, JSON or form-encoded, read the way Auth0 SDKs need:
/// JSON `null` and `""` both mean "not provided" (auth0-python sends `"audience": null`).
package struct RequestParameters: Sendable {
    private var values: [String: JSONValue]

    package init(_ values: [String: JSONValue]) {
        self.values = values
    }

    /// Parses a request body of the given `Content-Type`; kept apart from the request so the
    /// fuzz harness (``ParserFuzzing``) reaches exactly the code requests do.
    package static func parse(body: Data, contentType: String?, allowForm: Bool) throws -> RequestParameters {
        let contentType = contentType?.lowercased() ?? ""
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            guard allowForm else {
                throw SesameError.invalidRequest("This endpoint accepts JSON only: send Content-Type: application/json.")
            }
            return RequestParameters(FormDecoding.decode(String(decoding: body, as: UTF8.self)).mapValues(JSONValue.string))
        }
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return RequestParameters([:]) }
        if let object = JSONObjectReader.members(body).flatMap(flatObject) {
            return RequestParameters(object)
        }
        let decoder = JSONDecoder()
        // An object is asked for first: as a `JSONValue` the body would first be tried as a
        // string, a boolean, a number and an array, each failure building a `DecodingError`.
        if let object = try? decoder.decode([String: JSONValue].self, from: body) { return RequestParameters(object) }
        guard (try? decoder.decode(JSONValue.self, from: body)) != nil else {
            throw SesameError.invalidRequest("The request body is not valid JSON.")
        }
        throw SesameError.invalidRequest("The request body must be a JSON object.")
    }

    /// The members ``JSONObjectReader`` read, as `JSONDecoder` would decode them; nil when one
    /// is a number, whose `Double` is left to `JSONDecoder`'s own parsing.
    private static func flatObject(_ members: [String: JSONObjectReader.Value]) -> [String: JSONValue]? {
        var object: [String: JSONValue] = [:]
        object.reserveCapacity(members.count)
        for (key, value) in members {
            switch value {
            case .string(let text): object[key] = .string(text)
            case .bool(let flag): object[key] = .bool(flag)
            case .null: object[key] = .null
            case .number: return nil
            }
        }
        return object
    }

    /// A string parameter; nil when absent, `null` or empty.
    /// - Throws: 400 when the value is not a string.
    package func string(_ key: String) throws -> String? {
        switch values[key] {
        case .none, .null: return nil
        case .string(let text): return text.isEmpty ? nil : text
        default: throw SesameError.invalidRequest("\(key) must be a string.")
        }
    }

    /// An object of string values (Auth0's `authParams`); nil when absent.
    package func stringObject(_ key: String, error: SesameError) throws -> [String: String]? {
        switch values[key] {
        case .none, .null: return nil
        case .object(let object):
            var result: [String: String] = [:]
            for (name, value) in object {
                switch value {
                case .string(let text): result[name] = text
                case .null: continue
                default: throw error
                }
            }
            return result
        default: throw error
        }
    }

    /// A JSON object parameter as its JSON text (a string holding JSON is accepted too, for
    /// form-encoded requests); nil when absent.
    package func jsonObject(_ key: String) throws -> Data? {
        switch values[key] {
        case .none, .null: return nil
        case .string(let text): return text.isEmpty ? nil : Data(text.utf8)
        case .object(let value): return try JSONEncoder().encode(JSONValue.object(value))
        default: throw SesameError.invalidRequest("\(key) must be a JSON object.")
        }
    }

    /// The string members of an object parameter, others ignored (a JWK's `ext`, `key_ops`);
    /// nil when absent.
    package func stringMembers(_ key: String, error: SesameError) throws -> [String: String]? {
        switch values[key] {
        case .none, .null: return nil
        case .object(let object): return object.compactMapValues { if case .string(let text) = $0 { text } else { nil } }
        default: throw error
        }
    }

    /// The keys present, for rejecting unknown ones.
    package var keys: Dictionary<String, JSONValue>.Keys { values.keys }
}

extension RequestParameters {
    /// A boolean parameter; nil when absent or `null`.
    /// - Throws: 400 when the value is not `true` or `false`.
    package func bool(_ key: String) throws -> Bool? {
        switch values[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw SesameError.invalidRequest("\(key) must be true or false.")
        }
    }

    /// Whether the body names `key` at all (`null` and `""` included): a field sent empty
    /// clears a setting, one left out keeps it.
    package func contains(_ key: String) -> Bool { values[key] != nil }

    /// A JSON object parameter; nil when absent or `null`.
    /// - Throws: 400 when the value is not an object.
    package func object(_ key: String) throws -> [String: JSONValue]? {
        switch values[key] {
        case nil, .null?: return nil
        case .object(let object)?: return object
        default: throw SesameError.invalidRequest("\(key) must be a JSON object.")
        }
    }

    /// A list of strings; nil when absent or `null`.
    /// - Throws: 400 when the value is not an array of strings.
    package func strings(_ key: String) throws -> [String]? {
        switch values[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map { item in
                guard case .string(let text) = item else {
                    throw SesameError.invalidRequest("\(key) must be an array of strings.")
                }
                return text
            }
        default: throw SesameError.invalidRequest("\(key) must be an array of strings.")
        }
    }

    /// A whole-number parameter; nil when absent or `null`.
    /// - Throws: 400 when the value is not a whole number.
    package func int(_ key: String) throws -> Int? {
        switch values[key] {
        case nil, .null?: return nil
        case .number(let value)? where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: throw SesameError.invalidRequest("\(key) must be a whole number.")
        }
    }

    /// A list of objects (`scopes`, `permissions`), each as parameters of its own; nil when
    /// absent or `null`.
    /// - Throws: 400 when the value is not an array of objects.
    package func objects(_ key: String) throws -> [RequestParameters]? {
        switch values[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map { item in
                guard case .object(let object) = item else {
                    throw SesameError.invalidRequest("\(key) must be an array of objects.")
                }
                return RequestParameters(object)
            }
        default: throw SesameError.invalidRequest("\(key) must be an array of objects.")
        }
    }

    /// Refuses a body with a field outside `allowed`, as Auth0's Management API does: a
    /// misspelt field must not be ignored silently.
    package func refuseUnknown(_ allowed: Set<String>) throws {
        if let unknown = values.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw SesameError.invalidRequest("Payload validation error: additional property \(unknown) is not allowed.")
        }
    }
}

/// `application/x-www-form-urlencoded` decoding; the first of repeated keys wins.
package enum FormDecoding {
    /// The pairs of `text`, percent- and plus-decoded.
    package static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = unescape(parts[0]), result[key] == nil else { continue }
            result[key] = parts.count > 1 ? unescape(parts[1]) ?? "" : ""
        }
        return result
    }

    private static func unescape(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
