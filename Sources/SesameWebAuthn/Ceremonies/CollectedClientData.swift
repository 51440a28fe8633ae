/// The members of clientDataJSON (CollectedClientData, §5.8.1) that the RP checks.
/// Unknown members are ignored; the JSON text is never compared to a template.
struct CollectedClientData: Sendable {
    let type, challenge, origin: String
    let crossOrigin: Bool?
    let topOrigin: String?
    /// The legacy `tokenBinding.status`, when tokenBinding is an object with a string status.
    let tokenBindingStatus: String?

    /// Parses the raw clientDataJSON bytes (UTF-8, an optional BOM is stripped) with a strict JSON
    /// reader; type, challenge and origin must be strings.
    init(bytes: [UInt8]) throws(WebAuthnError) {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let members: ClientDataJSONReader.Members
        do { members = try ClientDataJSONReader.read(body) } catch { throw WebAuthnError.malformedClientData }
        guard let type = members.type, let challenge = members.challenge, let origin = members.origin else {
            throw WebAuthnError.malformedClientData
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        crossOrigin = members.crossOrigin
        topOrigin = members.topOrigin
        tokenBindingStatus = members.tokenBindingStatus
    }
}
