import ArgumentParser
import SesameAPI
import SesameWebAuthn

/// The options both ceremonies share: what the server put in the request options and how it
/// judges client data.
struct CeremonyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The challenge the server sent, base64url (padding and the standard alphabet are accepted).",
            valueName: "base64url"))
    var challenge: String

    @Option(
        help: ArgumentHelp(
            "An accepted clientDataJSON.origin, compared exactly (e.g. https://example.org or android:apk-key-hash:…). Repeatable.",
            valueName: "origin"))
    var origin: [String] = []

    @Option(
        name: .customLong("rp-id"),
        help: ArgumentHelp(
            "The RP ID whose SHA-256 must equal authenticatorData.rpIdHash (e.g. example.org).", valueName: "domain"))
    var rpID: String

    @Option(
        name: .customLong("top-origin"),
        help: ArgumentHelp(
            "An accepted clientDataJSON.topOrigin for cross-origin iframes (needs --allow-cross-origin). Repeatable.",
            valueName: "origin"))
    var topOrigin: [String] = []

    @Flag(help: "Accept ceremonies run in a cross-origin iframe (clientDataJSON.crossOrigin true or a topOrigin).")
    var allowCrossOrigin = false

    @Option(
        name: .customLong("alg"), parsing: .unconditionalSingleValue,
        help: ArgumentHelp(
            """
            An algorithm the server accepts (pubKeyCredParams): a COSE number such as -7 or a name such as \
            ES256, EdDSA, RS256, PS256, RS1, ML-DSA-65. Repeatable. Default: every supported algorithm except RS1.
            """,
            valueName: "alg"))
    var algorithms: [AlgorithmArgument] = []

    @Flag(
        help:
            "Require the UV (user verified) flag, as userVerification: \"required\" does. Default: UV is reported, not required.")
    var requireUserVerification = false

    func validate() throws {
        if origin.isEmpty { throw ValidationError("Give at least one --origin.") }
        if Base64URL.decodeTolerant(challenge) == nil { throw ValidationError("--challenge is not base64url: \(challenge)") }
    }

    /// The challenge bytes (validated).
    var challengeBytes: [UInt8] { Base64URL.decodeTolerant(challenge) ?? [] }

    /// A relying party configured from these options.
    func relyingParty() -> WebAuthnRelyingParty {
        var relyingParty = WebAuthnRelyingParty(rpID: rpID, allowedOrigins: origin)
        relyingParty.allowedTopOrigins = topOrigin
        relyingParty.allowCrossOrigin = allowCrossOrigin
        relyingParty.requireUserVerification = requireUserVerification
        if !algorithms.isEmpty { relyingParty.supportedAlgorithms = algorithms.map(\.algorithm) }
        return relyingParty
    }
}

/// A `--alg` value: a COSE algorithm number or its IANA name.
struct AlgorithmArgument: ExpressibleByArgument {
    let algorithm: COSEAlgorithm

    static let names: [String: COSEAlgorithm] = [
        "ES256": .es256, "ES384": .es384, "ES512": .es512, "EDDSA": .edDSA, "ED25519": .ed25519, "ED448": .ed448,
        "RS256": .rs256, "RS384": .rs384, "RS512": .rs512, "PS256": .ps256, "PS384": .ps384, "PS512": .ps512,
        "RS1": .rs1, "ML-DSA-44": .mlDSA44, "ML-DSA-65": .mlDSA65, "ML-DSA-87": .mlDSA87,
    ]

    init?(argument: String) {
        if let number = Int(argument), let algorithm = COSEAlgorithm(rawValue: number) {
            self.algorithm = algorithm
        } else if let algorithm = Self.names[argument.uppercased()] {
            self.algorithm = algorithm
        } else {
            return nil
        }
    }
}
