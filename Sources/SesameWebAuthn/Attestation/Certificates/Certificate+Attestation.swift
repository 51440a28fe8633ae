import Crypto
import SwiftASN1
import X509
import _CryptoExtras

/// x5c parsing and the certificate checks several formats share.
enum AttestationCertificates {
    /// Parses `attStmt.x5c`: a non-empty array of DER certificates, leaf first.
    ///
    /// The leaf must parse. An intermediate that swift-certificates refuses (the FIDO conformance
    /// TPM CA has a negative serial number) is left out of the trust path: the leaf's checks still
    /// run, and chain validation then simply cannot use that certificate.
    static func parse(_ statement: CBORMap) throws(WebAuthnError) -> [Certificate] {
        guard let items = statement[text: "x5c"]?.arrayValue, !items.isEmpty else {
            throw WebAuthnError.malformedAttestationStatement.with(detail: "x5c missing or empty")
        }
        var ders: [[UInt8]] = []
        for item in items {
            guard let der = item.bytesValue else {
                throw WebAuthnError.malformedAttestationStatement.with(detail: "x5c entry is not bytes")
            }
            ders.append(der)
        }
        return try parseChain(ders)
    }

    /// Parses DER certificates, leaf first (see ``parse(_:)`` for the intermediate rule).
    static func parseChain(_ ders: [[UInt8]]) throws(WebAuthnError) -> [Certificate] {
        let leaf = try parse(der: ders[0])
        return [leaf] + ders.dropFirst().compactMap { try? Certificate(derEncoded: $0) }
    }

    static func parse(der: [UInt8]) throws(WebAuthnError) -> Certificate {
        do { return try Certificate(derEncoded: der) } catch {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "unparseable certificate: \(error)")
        }
    }
}

extension VerificationKey {
    /// The signing key of an attestation certificate.
    init(certificate: Certificate) throws(WebAuthnError) {
        let publicKey = certificate.publicKey
        if let key = P256.Signing.PublicKey(publicKey) {
            self = .p256(key)
        } else if let key = P384.Signing.PublicKey(publicKey) {
            self = .p384(key)
        } else if let key = P521.Signing.PublicKey(publicKey) {
            self = .p521(key)
        } else if let key = _RSA.Signing.PublicKey(publicKey) {
            self = .rsa(key)
        } else if let key = Curve25519.Signing.PublicKey(publicKey) {
            self = .ed25519(key)
        } else {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "unsupported certificate key type")
        }
    }

    /// The key as an X.509 public key, to compare with certificate keys.
    var certificatePublicKey: Certificate.PublicKey? {
        switch self {
        case .p256(let key): Certificate.PublicKey(key)
        case .p384(let key): Certificate.PublicKey(key)
        case .p521(let key): Certificate.PublicKey(key)
        case .rsa(let key): Certificate.PublicKey(key)
        case .ed25519(let key): Certificate.PublicKey(key)
        case .mlDSA65, .mlDSA87: nil
        }
    }
}

extension Certificate {
    /// Whether the certificate's key is `key` (compared as SubjectPublicKeyInfo bytes).
    func hasPublicKey(of key: COSEKey) -> Bool {
        guard let other = key.key.certificatePublicKey else { return false }
        return publicKey.subjectPublicKeyInfoBytes == other.subjectPublicKeyInfoBytes
    }

    /// §8.2.1 / §8.3.1: if id-fido-gen-ce-aaguid is present it must not be critical and must
    /// hold the authenticator data's AAGUID (an OCTET STRING wrapping 16 bytes).
    func checkAAGUIDExtension(expected aaguid: [UInt8]) throws(WebAuthnError) {
        guard let fidoExtension = extensions[oid: AttestationOID.fidoAAGUID] else { return }
        guard !fidoExtension.critical else {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "AAGUID extension is critical")
        }
        guard let value = try? ASN1OctetString(derEncoded: fidoExtension.value), Array(value.bytes) == aaguid else {
            throw WebAuthnError.attestationAAGUIDMismatch
        }
    }

    /// Basic Constraints must not mark the certificate as a CA (absent counts as not a CA).
    /// Parsed leniently: some real leafs encode the DEFAULT `cA FALSE` explicitly, which strict DER refuses.
    func checkNotCertificateAuthority() throws(WebAuthnError) {
        guard let constraints = extensions[oid: AttestationOID.basicConstraints] else { return }
        guard let node = try? BER.parse(constraints.value), case .constructed(let children) = node.content else {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "unparseable basicConstraints")
        }
        if let first = children.first(where: { _ in true }), first.identifier == .boolean,
            case .primitive(let bytes) = first.content, bytes.contains(where: { $0 != 0 })
        {
            throw WebAuthnError.attestationCertificateInvalid.with(detail: "attestation certificate is a CA")
        }
    }

    /// The string values of a subject attribute, e.g. all OU values.
    func subjectValues(_ oid: ASN1ObjectIdentifier) -> [String] {
        subject.flatMap { $0 }.filter { $0.type == oid }.compactMap { String($0.value) }
    }
}
