import ArgumentParser
import Foundation
import SesameCore

/// `admin connections update` flags for the connection's passkey policy; absent flags leave
/// the stored value alone.
struct PasskeyPolicyOptions: ParsableArguments {
    @Option(name: .customLong("passkeys"), help: "Allow passkeys on the connection: true or false.") var enabled: Bool?
    @Option(name: .customLong("passkey-user-verification"), help: "required, preferred or discouraged.")
    var userVerification: String?
    @Option(name: .customLong("passkey-resident-key"), help: "required, preferred or discouraged.") var residentKey: String?
    @Option(name: .customLong("passkey-attestation"), help: "none, indirect, direct or enterprise.") var attestation: String?
    @Option(name: .customLong("passkey-alg"), help: "COSE algorithm offered at registration, e.g. -7 (repeatable).")
    var algorithms: [Int] = []
    @Option(
        name: .customLong("passkey-trust-anchor"),
        help: "PEM file of a root that attestation chains must reach (repeatable; 'none' clears them).")
    var trustAnchors: [String] = []

    func apply(to policy: inout PasskeyPolicy) throws {
        if let enabled { policy.enabled = enabled }
        if let userVerification { policy.userVerification = userVerification }
        if let residentKey { policy.residentKey = residentKey }
        if let attestation { policy.attestation = attestation }
        if !algorithms.isEmpty { policy.algorithms = algorithms }
        if trustAnchors == ["none"] {
            policy.trustAnchorsPEM = []
        } else if !trustAnchors.isEmpty {
            policy.trustAnchorsPEM = try trustAnchors.map { path in
                guard let pem = try? String(contentsOfFile: path, encoding: .utf8), pem.contains("-----BEGIN CERTIFICATE-----")
                else { throw CommandFailure("\(path) is not a readable PEM certificate") }
                return pem
            }
        }
    }
}
