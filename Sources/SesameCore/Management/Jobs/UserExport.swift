import Foundation
import SesameAPI

/// Auth0's users export: each user as the fields asked for (Auth0's names, `export_as`
/// renaming a column), written as newline-delimited JSON or as CSV with a header.
public enum UserExport {
    /// One exported field: a user field (`email`, or `app_metadata.plan` inside metadata) and
    /// the name it is written under.
    public struct Field: Sendable, Codable, Equatable {
        public var name: String
        public var exportAs: String?

        enum CodingKeys: String, CodingKey {
            case name
            case exportAs = "export_as"
        }

        /// Creates a field.
        public init(name: String, exportAs: String? = nil) {
            (self.name, self.exportAs) = (name, exportAs)
        }

        var column: String { exportAs ?? name }
    }

    /// The formats Auth0 writes.
    public static let formats = ["json", "csv"]

    /// The fields exported when none are asked for.
    public static let defaultFields = [
        "user_id", "email", "email_verified", "phone_number", "phone_verified", "name", "given_name", "family_name",
        "nickname", "picture", "blocked", "created_at", "updated_at", "last_login", "logins_count", "user_metadata",
        "app_metadata",
    ].map { Field(name: $0) }

    /// Refuses an unknown format, an empty or unnamed field, or more than 100 fields.
    static func validate(format: String, fields: [Field]) throws {
        guard formats.contains(format) else { throw SesameError.invalidRequest("format must be json or csv.") }
        guard fields.count <= 100, fields.allSatisfy({ !$0.name.isEmpty && $0.column.count <= 200 }) else {
            throw SesameError.invalidRequest("fields must be 1 to 100 named fields.")
        }
    }

    /// `user` in Auth0's field names.
    static func record(_ user: User) -> [String: JSONValue] {
        var record: [String: JSONValue] = [
            "user_id": .string(user.userID), "name": .string(user.name ?? user.identifier),
            "nickname": .string(user.nickname ?? user.identifier), "blocked": .bool(user.blocked),
            "created_at": .string(ISO8601.string(user.createdAt)), "updated_at": .string(ISO8601.string(user.updatedAt)),
            "logins_count": .number(Double(user.loginsCount)), "user_metadata": .object(user.userMetadata ?? [:]),
            "app_metadata": .object(user.appMetadata ?? [:]),
        ]
        if let email = user.email { (record["email"], record["email_verified"]) = (.string(email), .bool(user.emailVerified)) }
        if let phone = user.phoneNumber {
            (record["phone_number"], record["phone_verified"]) = (.string(phone), .bool(user.phoneVerified))
        }
        for (key, value) in [("given_name", user.givenName), ("family_name", user.familyName), ("picture", user.picture)] {
            if let value { record[key] = .string(value) }
        }
        if let lastLogin = user.lastLogin { record["last_login"] = .string(ISO8601.string(lastLogin)) }
        return record
    }

    /// The value of `field` (a dotted name reaches into an object).
    static func value(_ field: Field, of record: [String: JSONValue]) -> JSONValue? {
        if let value = record[field.name] { return value }
        let path = field.name.split(separator: ".").map(String.init)
        var current: JSONValue? = .object(record)
        for key in path {
            guard case .object(let object)? = current else { return nil }
            current = object[key]
        }
        return current
    }

    /// One user as a JSON line.
    static func jsonLine(_ user: User, fields: [Field]) throws -> Data {
        let record = record(user)
        var line: [String: JSONValue] = [:]
        for field in fields { line[field.column] = value(field, of: record) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(line) + Data("\n".utf8)
    }

    /// The CSV header line.
    static func csvHeader(_ fields: [Field]) -> Data {
        Data((fields.map { csvCell($0.column) }.joined(separator: ",") + "\r\n").utf8)
    }

    /// One user as a CSV line: text as is, other values as JSON, quoted where RFC 4180 needs it.
    static func csvLine(_ user: User, fields: [Field]) throws -> Data {
        let record = record(user)
        let cells = try fields.map { field -> String in
            switch value(field, of: record) {
            case nil, .null?: return ""
            case .string(let text)?: return csvCell(text)
            case let other?: return csvCell(String(decoding: try JSONEncoder().encode(other), as: UTF8.self))
            }
        }
        return Data((cells.joined(separator: ",") + "\r\n").utf8)
    }

    /// A cell quoted when it holds a comma, a quote or a line break. A leading `=`, `+`, `-`
    /// or `@` is prefixed with `'`, so a spreadsheet does not run a field as a formula (a
    /// phone number, `+` and digits only, is left as it is).
    static func csvCell(_ text: String) -> String {
        var text = text
        let phone = text.first == "+" && text.dropFirst().allSatisfy { $0.isASCII && $0.isNumber } && text.count > 1
        if let first = text.first, "=+-@".contains(first), !phone { text = "'" + text }
        guard text.contains(where: { ",\"\r\n".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
