import ArgumentParser
import Foundation
import SesameAPI
import SesameClientCore

extension LoginCommand {
    /// `sesame login device-key [--register]`: this machine's key, the TouchIDAuth way.
    struct DeviceKeyLogin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "device-key",
            abstract: "Sign in with this machine's device key (--register it first, while signed in).")
        @Flag(help: "Make a key and register it for the signed-in user (needs a login of the last 5 minutes).")
        var register = false
        @OptionGroup var session: ClientSessionOptions

        /// The key file: `device-key.json` beside the session, 0600. Logout keeps it.
        static var store: FileDeviceKeyStore {
            FileDeviceKeyStore(path: ClientSessionOptions.configDirectory + "/device-key.json")
        }

        func run() async throws {
            try await clientCommand {
                let client = try session.client()
                let flow = DeviceKeyAuthentication(client: client, store: Self.store, presence: TerminalPresenceVerifier())
                let manager = CredentialsManager(client: client, store: ClientSessionOptions.store)
                if register {
                    let credentials: Credentials
                    do {
                        credentials = try await manager.credentials()
                    } catch let error as SesameClientError where error.isNotSignedIn {
                        throw SesameClientErrorMessage("not signed in: run sesame login email ADDRESS first")
                    }
                    let host = ProcessInfo.processInfo.hostName
                    let key = try await flow.register(accessToken: credentials.accessToken, deviceName: "sesame CLI on \(host)")
                    print("Registered this machine's device key (\(key.algorithm.rawValue)) as \(key.credentialID ?? "-").")
                    return
                }
                let credentials: Credentials
                do {
                    credentials = try await flow.start(scope: LoginCommand.scope)
                } catch let error as SesameClientError where error.isNotSignedIn {
                    throw SesameClientErrorMessage("no device key here: sign in, then run sesame login device-key --register")
                }
                try await completeLogin(client, credentials)
            }
        }
    }
}
