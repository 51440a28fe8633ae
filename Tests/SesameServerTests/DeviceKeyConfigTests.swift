import Foundation
import SesameCore
import SesameServer
import Testing

@Suite("Configuration: device_keys")
struct DeviceKeyConfigTests {
    static let noFile = ["data_dir": FileManager.default.temporaryDirectory.appendingPathComponent("sesame-none-\(UUID())").path]

    @Test("RSA-1024 device keys are off by default and on with SESAME_DEVICE_KEYS_ALLOW_RSA1024")
    func allowRSA1024() async throws {
        let defaults = try await ServerConfiguration.load(flags: Self.noFile, environment: [:])
        #expect(!defaults.settings.deviceKeys.allowRSA1024)
        let legacy = try await ServerConfiguration.load(
            flags: Self.noFile, environment: ["SESAME_DEVICE_KEYS_ALLOW_RSA1024": "true"])
        #expect(legacy.settings.deviceKeys.allowRSA1024)
    }

    @Test("a value that is not a boolean is reported, not guessed")
    func badValue() async throws {
        await #expect(throws: ConfigurationError.self) {
            _ = try await ServerConfiguration.load(flags: Self.noFile, environment: ["SESAME_DEVICE_KEYS_ALLOW_RSA1024": "maybe"])
        }
    }
}
