/// Parsed authenticator data (§6.1). Keeps the raw bytes: signatures cover them, never a re-encoding.
struct AuthenticatorData: Sendable {
    /// The bytes as received.
    let raw: [UInt8]
    let rpIDHash: [UInt8]
    let flags: AuthenticatorFlags
    let signCount: UInt32
    let attestedCredential: AttestedCredentialData?
    let extensions: CBORMap?

    /// The L3 limit on credential ID length (§5.1.3 / §7.1 step 15).
    static let maxCredentialIDLength = 1023

    /// Parses authenticator data: 37 fixed bytes, attested credential data iff AT,
    /// one extensions map iff ED, and nothing after that.
    init(bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw Self.malformed("shorter than 37 bytes") }
        raw = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = AuthenticatorFlags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { ($0 << 8) | UInt32($1) }
        var offset = 37
        if flags.attestedCredentialData {
            let (data, used) = try AttestedCredentialData.parse(bytes[offset...])
            attestedCredential = data
            offset += used
        } else {
            attestedCredential = nil
        }
        (extensions, offset) = try Self.parseExtensions(bytes, offset: offset, present: flags.extensionData)
        guard offset == bytes.count else { throw Self.malformed("\(bytes.count - offset) trailing bytes") }
    }

    private static func parseExtensions(
        _ bytes: [UInt8],
        offset: Int,
        present: Bool
    ) throws(WebAuthnError) -> (CBORMap?, Int) {
        guard present else { return (nil, offset) }
        do {
            let (value, used) = try CBORDecoder().decodePrefix(bytes[offset...])
            guard let map = value.mapValue else { throw malformed("extensions are not a CBOR map") }
            return (map, offset + used)
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw malformed("extensions: \(error)")
        }
    }

    static func malformed(_ detail: String) -> WebAuthnError {
        WebAuthnError.malformedAuthenticatorData.with(detail: detail)
    }
}

/// Attested credential data (§6.5.2): AAGUID, credential ID and credential public key.
struct AttestedCredentialData: Sendable {
    let aaguid: [UInt8]
    let credentialID: [UInt8]
    /// The COSE_Key bytes exactly as the authenticator encoded them.
    let publicKeyBytes: [UInt8]
    let publicKey: CBORValue

    /// Parses from the start of `bytes`, returning how many bytes were used.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(WebAuthnError) -> (AttestedCredentialData, Int) {
        let start = bytes.startIndex
        guard bytes.count >= 18 else { throw AuthenticatorData.malformed("attested credential data truncated") }
        let idLength = Int(bytes[start + 16]) << 8 | Int(bytes[start + 17])
        guard idLength <= AuthenticatorData.maxCredentialIDLength else {
            throw WebAuthnError.credentialIDTooLong.with(detail: "\(idLength) bytes")
        }
        let keyStart = start + 18 + idLength
        guard keyStart < bytes.endIndex else { throw AuthenticatorData.malformed("credential ID truncated") }
        let value: CBORValue
        let used: Int
        do { (value, used) = try CBORDecoder().decodePrefix(bytes[keyStart...]) } catch {
            throw WebAuthnError.malformedPublicKey.with(detail: error.reason)
        }
        let data = AttestedCredentialData(
            aaguid: Array(bytes[start..<start + 16]),
            credentialID: Array(bytes[start + 18..<keyStart]),
            publicKeyBytes: Array(bytes[keyStart..<keyStart + used]),
            publicKey: value
        )
        return (data, keyStart + used - start)
    }
}
