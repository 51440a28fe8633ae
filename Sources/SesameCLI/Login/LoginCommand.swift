import ArgumentParser
import Foundation
import SesameAPI
import SesameClientCore

/// `sesame login email|sms|magic-link`: sign in from a terminal with a one-time code or a link, on the SDK.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Sign in to a Sesame server from the terminal.",
        subcommands: [Email.self, SMS.self, MagicLinkLogin.self, PasskeyLogin.self, DeviceKeyLogin.self])

    /// What a terminal login asks for: the profile, a refresh token, and the right to register
    /// this machine's device key right after (`sesame login device-key --register`).
    static let scope = SesameClient.defaultScope + " create:current_user_device_credentials"

    struct Email: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "email", abstract: "Send a code to an email address, then sign in with it.")
        @Argument(help: "The email address.") var address: String
        @OptionGroup var session: ClientSessionOptions

        func run() async throws {
            try await clientCommand {
                let client = try session.client()
                try await client.startPasswordless(email: address)
                try await codeLogin(client) { try await client.login(email: address, code: $0, scope: LoginCommand.scope) }
            }
        }
    }

    struct SMS: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sms", abstract: "Text a code to a phone number, then sign in with it.")
        @Argument(help: "The phone number, E.164 (+15551234567).") var phoneNumber: String
        @OptionGroup var session: ClientSessionOptions

        func run() async throws {
            try await clientCommand {
                let client = try session.client()
                try await client.startPasswordless(phoneNumber: phoneNumber)
                try await codeLogin(client) {
                    try await client.login(phoneNumber: phoneNumber, code: $0, scope: LoginCommand.scope)
                }
            }
        }
    }

    /// A bound on prompts for a server that never says a code is dead (Sesame says so with
    /// `error_reason` when the connection's `max_attempts` is spent).
    static let maximumPrompts = 10
}

/// Prompts `Code:` and signs in; a wrong code prompts again until the server says it is dead.
private func codeLogin(_ client: SesameClient, _ login: (String) async throws -> Credentials) async throws {
    for prompt in 1...LoginCommand.maximumPrompts {
        // Unbuffered, so the prompt shows before the read waits.
        FileHandle.standardOutput.write(Data("Code: ".utf8))
        guard let code = readLine()?.trimmingCharacters(in: .whitespaces), !code.isEmpty else {
            throw SesameClientErrorMessage("no code given")
        }
        do {
            let credentials = try await login(code)
            try await completeLogin(client, credentials)
            return
        } catch let error as SesameClientError where error.isCodeExpired {
            throw SesameClientErrorMessage("The code has expired: run the command again for a new one.")
        } catch let error as SesameClientError
            where error.isInvalidCredentials && !error.isCodeUsedUp && prompt < LoginCommand.maximumPrompts
        {
            printError("\(error.message) Try again.")
        } catch let error as SesameClientError where error.isInvalidCredentials {
            throw SesameClientErrorMessage("\(error.message) The code is used up: run the command again for a new one.")
        }
    }
}

/// A message for the terminal that ends the command with status 1.
struct SesameClientErrorMessage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
