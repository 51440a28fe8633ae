import HTTPTypes
import Hummingbird
import SesameCore

extension HTTPField.Name {
    /// RFC 9449 §4.1: the proof of possession.
    static let dpop = Self("DPoP")!
    /// RFC 9449 §8.1: the nonce the next proof must carry.
    static let dpopNonce = Self("DPoP-Nonce")!
}

extension Request {
    /// Every `DPoP` header the request carries (RFC 9449 §4.3 allows one).
    var dpopProofs: [String] { headers[values: .dpop] }

    /// The access token as presented: `Authorization: DPoP …` with its proofs, or else a
    /// bearer token (nil without one), for Core to check against this method and path.
    var presentedAccessToken: PresentedAccessToken {
        let path = uri.path
        if let header = headers[.authorization], header.lowercased().hasPrefix("dpop ") {
            return PresentedAccessToken(
                scheme: .dpop, token: header.dropFirst(5).trimmingWhitespace(), proofs: dpopProofs,
                method: method.rawValue, path: path)
        }
        return PresentedAccessToken(scheme: .bearer, token: bearerToken, proofs: [], method: method.rawValue, path: path)
    }
}
