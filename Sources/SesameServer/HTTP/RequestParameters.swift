import Foundation
import Hummingbird
import SesameCore

/// The parameters of a request body, JSON or form-encoded, read the way Auth0 SDKs need:
/// JSON `null` and `""` both mean "not provided" (auth0-python sends `"audience": null`).
struct RequestParameters: Sendable {
    private var values: [String: JSONValue]

    init(_ values: [String: JSONValue]) {
        self.values = values
    }

    /// Parses the body of `request`. Form encoding is accepted only where `allowForm` says.
    static func parse(_ request: Request, context: SesameRequestContext, allowForm: Bool) async throws -> RequestParameters {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        let body = Data(buffer.readableBytesView)
        return try parse(body: body, contentType: request.headers[.contentType], allowForm: allowForm)
    }

    /// Parses a request body of the given `Content-Type`; kept apart from the request so the
    /// fuzz harness (``ServerFuzzing``) reaches exactly the code requests do.
    static func parse(body: Data, contentType: String?, allowForm: Bool) throws -> RequestParameters {
        let contentType = contentType?.lowercased() ?? ""
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            guard allowForm else {
                throw SesameError.invalidRequest("This endpoint accepts JSON only: send Content-Type: application/json.")
            }
            return RequestParameters(FormDecoding.decode(String(decoding: body, as: UTF8.self)).mapValues(JSONValue.string))
        }
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return RequestParameters([:]) }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: body) else {
            throw SesameError.invalidRequest("The request body is not valid JSON.")
        }
        guard case .object(let object) = value else {
            throw SesameError.invalidRequest("The request body must be a JSON object.")
        }
        return RequestParameters(object)
    }

    /// A string parameter; nil when absent, `null` or empty.
    /// - Throws: 400 when the value is not a string.
    func string(_ key: String) throws -> String? {
        switch values[key] {
        case .none, .null: return nil
        case .string(let text): return text.isEmpty ? nil : text
        default: throw SesameError.invalidRequest("\(key) must be a string.")
        }
    }

    /// An object of string values (Auth0's `authParams`); nil when absent.
    func stringObject(_ key: String, error: SesameError) throws -> [String: String]? {
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
    func jsonObject(_ key: String) throws -> Data? {
        switch values[key] {
        case .none, .null: return nil
        case .string(let text): return text.isEmpty ? nil : Data(text.utf8)
        case .object(let value): return try JSONEncoder().encode(JSONValue.object(value))
        default: throw SesameError.invalidRequest("\(key) must be a JSON object.")
        }
    }

    /// The string members of an object parameter, others ignored (a JWK's `ext`, `key_ops`);
    /// nil when absent.
    func stringMembers(_ key: String, error: SesameError) throws -> [String: String]? {
        switch values[key] {
        case .none, .null: return nil
        case .object(let object): return object.compactMapValues { if case .string(let text) = $0 { text } else { nil } }
        default: throw error
        }
    }

    /// The keys present, for rejecting unknown ones.
    var keys: Dictionary<String, JSONValue>.Keys { values.keys }
}

/// Any JSON value.
enum JSONValue: Codable, Sendable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let bool = try? container.decode(Bool.self) { self = .bool(bool) }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let text = try? container.decode(String.self) { self = .string(text) }
        else if let array = try? container.decode([JSONValue].self) { self = .array(array) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// `application/x-www-form-urlencoded` decoding; the first of repeated keys wins.
enum FormDecoding {
    static func decode(_ text: String) -> [String: String] {
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
