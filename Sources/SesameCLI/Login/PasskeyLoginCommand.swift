import ArgumentParser
import Foundation
import SesameAPI
import SesameClientCore
import SesameSoftwareAuthenticator

extension LoginCommand {
    /// `sesame login passkey [--signup] [--email ADDRESS]`: a passkey kept by the software
    /// authenticator in the config directory.
    struct PasskeyLogin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "passkey", abstract: "Sign in (or --signup) with a passkey kept in the config directory.")
        @Flag(help: "Create an account and its passkey.") var signup = false
        @Option(help: "The account's email address (for --signup; asked for when missing).") var email: String?
        @OptionGroup var session: ClientSessionOptions

        func run() async throws {
            try await clientCommand {
                let client = try session.client()
                let authenticator: SoftwareAuthenticator
                do {
                    authenticator = try SoftwareAuthenticator(path: ClientSessionOptions.configDirectory + "/passkeys.json")
                } catch {
                    throw SesameClientErrorMessage("the passkey file cannot be read: \(error)")
                }
                let credentials: Credentials
                do {
                    credentials =
                        signup
                        ? try await client.signUpWithPasskey(email: try address(), authenticator: authenticator)
                        : try await client.loginWithPasskey(authenticator: authenticator)
                } catch let error as SoftwareAuthenticatorError {
                    throw SesameClientErrorMessage(error.description)
                }
                try await completeLogin(client, credentials)
            }
        }

        /// `--email`, or the answer to `Email:`.
        private func address() throws -> String {
            if let email { return email }
            FileHandle.standardOutput.write(Data("Email: ".utf8))
            guard let typed = readLine()?.trimmingCharacters(in: .whitespaces), !typed.isEmpty else {
                throw SesameClientErrorMessage("no email address given")
            }
            return typed
        }
    }
}
