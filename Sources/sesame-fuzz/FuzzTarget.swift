import Foundation
@_spi(Fuzzing) import SesameCore
@_spi(Fuzzing) import SesameParsers
@_spi(Fuzzing) import SesameWebAuthn

/// One parser the fuzzer drives, named as in `scripts/fuzz` and `Tests/FuzzCorpus/<name>/`.
enum FuzzTarget: String, CaseIterable {
    case cbor
    case clientData = "client-data"
    case attestation
    case deviceJWT = "device-jwt"
    case requestParameters = "request-parameters"
    case smtpReply = "smtp-reply"
    case usersFile = "users-file"

    /// The environment variable that names the target, since libFuzzer owns the command line.
    static let environmentVariable = "SESAME_FUZZ_TARGET"

    /// Runs the target's parser over one input.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .cbor: WebAuthnFuzzing.cbor(bytes)
        case .clientData: WebAuthnFuzzing.clientData(bytes)
        case .attestation: WebAuthnFuzzing.attestation(bytes)
        case .deviceJWT: CoreFuzzing.deviceJWT(bytes)
        case .requestParameters: ParserFuzzing.requestParameters(bytes)
        case .smtpReply: ParserFuzzing.smtpReply(bytes)
        case .usersFile: CoreFuzzing.usersFile(bytes)
        }
    }

    /// The target named by ``environmentVariable``.
    static func fromEnvironment() throws(UsageError) -> FuzzTarget {
        let names = allCases.map(\.rawValue).joined(separator: ", ")
        guard let name = ProcessInfo.processInfo.environment[environmentVariable] else {
            throw UsageError("set \(environmentVariable) to one of: \(names)")
        }
        guard let target = FuzzTarget(rawValue: name) else {
            throw UsageError("\(environmentVariable)=\(name) names no target; choose one of: \(names)")
        }
        return target
    }
}

/// A mistake in how `sesame-fuzz` was started, reported on standard error.
struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
