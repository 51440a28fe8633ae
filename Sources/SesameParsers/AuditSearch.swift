import Foundation
package import SesameCore

extension AuditQuery {
    /// Applies Auth0's log search `q` in the forms Sesame understands: `type:"s"` and
    /// `user_id:"email|…"`; any other field (`client_id` is not indexed) is refused.
    /// - Parameter auditTypes: Sesame's audit types a `type` names: every one Auth0's event
    ///   code stands for (`fp` → `otp_failed`, `otp_failure_budget_exhausted`), or Sesame's own.
    /// - Throws: 400 `invalid_request` for a search of another form.
    package mutating func apply(search q: String, auditTypes: (String) -> [String]) throws {
        // Auth0's Lucene-like `search` joins terms with AND: `type:"s" AND user_id:"email|…"`.
        for term in q.components(separatedBy: " AND ") { try apply(term: term, auditTypes: auditTypes) }
    }

    private mutating func apply(term q: String, auditTypes: (String) -> [String]) throws {
        let parts = q.split(separator: ":", maxSplits: 1).map { String($0).trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { throw SesameError.invalidRequest("q must look like type:\"s\" or user_id:\"email|…\".") }
        let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        switch parts[0] {
        case "user_id": userID = value
        case "type": types = auditTypes(value)
        default: throw SesameError.invalidRequest("q may search type or user_id, not \(parts[0]).")
        }
    }
}
