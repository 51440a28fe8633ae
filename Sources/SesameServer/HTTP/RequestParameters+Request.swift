import Foundation
import Hummingbird
import SesameParsers

extension RequestParameters {
    /// Parses the body of `request`. Form encoding is accepted only where `allowForm` says.
    static func parse(_ request: Request, context: SesameRequestContext, allowForm: Bool) async throws -> RequestParameters {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        let body = Data(buffer.readableBytesView)
        return try parse(body: body, contentType: request.headers[.contentType], allowForm: allowForm)
    }
}
