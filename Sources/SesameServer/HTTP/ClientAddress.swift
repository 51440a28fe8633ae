import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension SesameRequestContext {
    /// The client's IP for rate limiting. `X-Forwarded-For` is believed only behind a proxy
    /// the operator declared (`trust_proxy`): otherwise any client could pick its own key.
    func clientIP(_ request: Request, trustProxy: Bool) -> String {
        if trustProxy, let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!],
            let first = forwarded.split(separator: ",").first
        {
            return first.trimmingCharacters(in: .whitespaces)
        }
        return remoteAddress?.ipAddress ?? "unknown"
    }
}
