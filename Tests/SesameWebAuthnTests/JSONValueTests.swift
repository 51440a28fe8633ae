import Foundation
import SesameAPI
import Testing

/// `JSONValue` keeps every JSON value as the kind it was written as, whatever order the kinds
/// are tried in when decoding.
@Suite("JSONValue")
struct JSONValueTests {
    @Test(
        "each kind decodes as itself",
        arguments: [
            ("null", JSONValue.null),
            ("true", .bool(true)),
            ("false", .bool(false)),
            ("1", .number(1)),
            ("0", .number(0)),
            ("-2.5", .number(-2.5)),
            (#""1""#, .string("1")),
            (#""true""#, .string("true")),
            (#""""#, .string("")),
            (#"[1,"a",true,null]"#, .array([.number(1), .string("a"), .bool(true), .null])),
            (#"{"a":{"b":[false]},"c":"d"}"#, .object(["a": .object(["b": .array([.bool(false)])]), "c": .string("d")])),
        ])
    func decodes(_ json: String, _ expected: JSONValue) throws {
        #expect(try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) == expected)
    }

    @Test("values survive a round trip through JSON")
    func roundTrip() throws {
        let value = JSONValue.object([
            "s": .string("x"), "n": .number(3), "b": .bool(true), "z": .null, "a": .array([.object([:])]),
        ])
        #expect(try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value)) == value)
    }
}
