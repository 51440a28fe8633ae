import Foundation
import Testing

@testable import SesameServer

@Suite("Configuration: unknown keys and values of the wrong type are refused")
struct ConfigurationKeysTests {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sesame-keys-\(UUID())").path

    private func problems(environment: [String: String] = [:], file: String? = nil) async -> [String] {
        var flags = ["data_dir": Self.directory]
        if let file {
            let path = Self.directory + "-\(UUID()).json"
            _ = FileManager.default.createFile(atPath: path, contents: Data(file.utf8))
            flags["config"] = path
        }
        do {
            _ = try await ServerConfiguration.load(flags: flags, environment: environment)
            return []
        } catch let error as ConfigurationError {
            return error.problems
        } catch {
            return ["\(error)"]
        }
    }

    @Test("every documented variable is known; a misspelt one is named with the closest")
    func environment() async {
        #expect(await problems(environment: ["SESAME_PORT": "0", "SESAME_EMAIL_SMTP_HOST": "mail"]).isEmpty)
        #expect(
            await problems(environment: ["SESAME_RATE_LIMIT_START_PER_IPP": "5"]) == [
                "unknown environment variable SESAME_RATE_LIMIT_START_PER_IPP: did you mean SESAME_RATE_LIMIT_START_PER_IP?"
            ])
        #expect(
            await problems(environment: ["SESAME_NOTHING_LIKE_IT_AT_ALL": "1"]) == [
                "unknown environment variable SESAME_NOTHING_LIKE_IT_AT_ALL"
            ])
    }

    @Test("the tests' and tools' variables are not configuration")
    func otherVariables() async {
        let other = ["SESAME_TEST_POSTGRES_URL": "x", "SESAME_BIN": "x", "SESAME_DOMAIN": "x", "SESAME_SCHEMATHESIS_SEED": "1"]
        #expect(await problems(environment: other).isEmpty)
    }

    @Test("nested and dotted file keys are both checked; the wrong type is named")
    func file() async {
        #expect(
            await problems(file: #"{"email": {"smtp": {"host": "mail", "port": 25}}, "tokens.id_token_lifetime": 900}"#).isEmpty)
        let found = await problems(file: #"{"emial": {"provider": "smtp"}, "port": true}"#)
        #expect(found.count == 2)
        #expect(found.contains { $0.hasPrefix("unknown key emial.provider in ") && $0.hasSuffix("did you mean email.provider?") })
        #expect(found.contains { $0.hasPrefix("port in ") && $0.hasSuffix(": true is not a whole number") })
    }

    @Test("edit distance")
    func distance() {
        #expect(ConfigurationKeys.editDistance("emial", "email") == 2)
        #expect(ConfigurationKeys.editDistance("", "abc") == 3)
        #expect(ConfigurationKeys.editDistance("port", "port") == 0)
        #expect(ConfigurationKeys.editDistance("kitten", "sitting") == 3)
    }
}
