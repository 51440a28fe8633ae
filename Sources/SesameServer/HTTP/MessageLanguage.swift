import HTTPTypes
import Hummingbird
import SesameCore

extension HTTPField.Name {
    /// Auth0's header for the language of passwordless messages.
    static let requestLanguage = HTTPField.Name("x-request-language")!
}

extension PasswordlessStartRequest {
    /// Carries the request's language headers to the message: `x-request-language`, then
    /// `Accept-Language` (the composer chooses; the connection's default comes last).
    mutating func takeLanguages(from request: Request) {
        requestLanguage = request.headers[.requestLanguage]
        acceptLanguage = request.headers[.acceptLanguage]
    }
}
