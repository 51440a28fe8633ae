import Foundation
import Hummingbird
import SesameCore

extension PageView {
    /// The "signed out" page of a session whose applications registered front-channel logout
    /// pages (OpenID Connect Front-Channel Logout 1.0): each loads in a hidden frame with
    /// `iss` and `sid`, then `logout.js` goes on to `continueTo` (the link does the same by
    /// hand). The policy lets the page frame exactly those pages' origins and nothing else.
    func frontchannelLogout(_ urls: [String], continueTo: String?, refusal: SesameError?) -> Response {
        var values: [String: Any] = [
            "heading": text(refusal == nil ? "signed_out_heading" : "error_heading"),
            "title": text("signed_out_heading"), "text": refusal?.message ?? text("signed_out"),
            "isError": refusal != nil, "frames": urls.map { ["url": $0] },
        ]
        values["continueURL"] = continueTo
        let origins = Set(urls.compactMap { OriginPolicy.origin(of: $0) }).sorted()
        return render(
            "logout-frames", values: values, status: refusal == nil ? .ok : .badRequest, scripts: true,
            frameSources: origins)
    }
}
