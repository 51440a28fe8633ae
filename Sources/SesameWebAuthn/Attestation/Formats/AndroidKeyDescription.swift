import SwiftASN1

/// The parts of the Android KeyDescription (OID 1.3.6.1.4.1.11129.2.1.17) that §8.4 checks:
///
/// ```
/// KeyDescription ::= SEQUENCE {
///   attestationVersion INTEGER, attestationSecurityLevel ENUMERATED,
///   keyMintVersion INTEGER, keyMintSecurityLevel ENUMERATED,
///   attestationChallenge OCTET STRING, uniqueId OCTET STRING,
///   softwareEnforced AuthorizationList, hardwareEnforced AuthorizationList }
/// AuthorizationList ::= SEQUENCE { purpose [1] EXPLICIT SET OF INTEGER OPTIONAL, ...,
///   allApplications [600] EXPLICIT NULL OPTIONAL, ..., origin [702] EXPLICIT INTEGER OPTIONAL, ... }
/// ```
///
/// Parsed with BER rules and by position/tag, so versions that add fields still parse.
struct AndroidKeyDescription {
    static let purposeSign = 2
    static let originGenerated = 0

    struct AuthorizationList {
        var purposes: [Int] = []
        var allApplications = false
        var origin: Int?
    }

    let attestationChallenge: [UInt8]
    let softwareEnforced: AuthorizationList
    let teeEnforced: AuthorizationList

    init(der: ArraySlice<UInt8>) throws(WebAuthnError) {
        guard let root = try? BER.parse(der), case .constructed(let collection) = root.content else {
            throw Self.invalid("KeyDescription is not a SEQUENCE")
        }
        let fields = Array(collection)
        guard fields.count >= 8, fields[4].identifier == .octetString,
            case .primitive(let challenge) = fields[4].content
        else { throw Self.invalid("KeyDescription fields missing") }
        attestationChallenge = Array(challenge)
        softwareEnforced = try Self.authorizationList(fields[6])
        teeEnforced = try Self.authorizationList(fields[7])
    }

    private static func authorizationList(_ node: ASN1Node) throws(WebAuthnError) -> AuthorizationList {
        guard node.identifier == .sequence, case .constructed(let entries) = node.content else {
            throw invalid("AuthorizationList is not a SEQUENCE")
        }
        var list = AuthorizationList()
        for entry in entries where entry.identifier.tagClass == .contextSpecific {
            let inner = explicitChild(entry)
            switch entry.identifier.tagNumber {
            case 1: list.purposes = inner.map(integers) ?? []
            case 600: list.allApplications = true
            case 702: list.origin = inner.flatMap(integer)
            default: continue
            }
        }
        return list
    }

    /// The single child of an EXPLICIT tag.
    private static func explicitChild(_ node: ASN1Node) -> ASN1Node? {
        guard case .constructed(let children) = node.content else { return nil }
        return children.first { _ in true }
    }

    /// INTEGER members of a SET OF INTEGER.
    private static func integers(_ node: ASN1Node) -> [Int] {
        guard case .constructed(let children) = node.content else { return [] }
        return children.compactMap(integer)
    }

    /// A small non-negative INTEGER (or ENUMERATED) value.
    private static func integer(_ node: ASN1Node) -> Int? {
        guard node.identifier == .integer || node.identifier == .enumerated,
            case .primitive(let bytes) = node.content, let first = bytes.first, first < 0x80, bytes.count <= 8
        else { return nil }
        return bytes.reduce(0) { ($0 << 8) | Int($1) }
    }

    private static func invalid(_ detail: String) -> WebAuthnError {
        WebAuthnError.attestationCertificateInvalid.with(detail: detail)
    }
}
