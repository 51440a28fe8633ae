extension SesameClient {
    /// This client with its tokens bound to `dpop`'s key (RFC 9449): every token request and
    /// every request with an access token (`/userinfo`, `/me/…`) carries a proof, the
    /// server's nonce is kept and a request it refuses for want of one is sent again with it.
    /// Tokens come back as `token_type: DPoP`; a refresh token only renews with the same key.
    public func usingDPoP(_ dpop: DPoP) -> SesameClient {
        var copy = self
        copy.transport.dpop = dpop
        return copy
    }
}
