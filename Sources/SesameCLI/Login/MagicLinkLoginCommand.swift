import ArgumentParser
import Foundation
import SesameAPI
import SesameClientCore

extension LoginCommand {
    /// `sesame login magic-link ADDRESS`: a link opened on any device (a phone, say), confirmed
    /// there with the number this terminal shows, while the terminal waits.
    struct MagicLinkLogin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "magic-link",
            abstract: "Email a sign-in link to open on any device, then wait here until it is confirmed.")
        @Argument(help: "The email address.") var address: String
        @OptionGroup var session: ClientSessionOptions

        func run() async throws {
            try await clientCommand {
                let client = try session.client()
                let wait = try await client.startMagicLink(email: address)
                // Written unbuffered: the number must show now, also when the output is a pipe.
                FileHandle.standardOutput.write(
                    Data(
                        ("Check your email at \(address) and open the link on any device. "
                            + "When it asks, enter this number: \(wait.matchCode)\nWaiting… (Ctrl-C to stop)\n").utf8))
                let credentials: Credentials
                do {
                    credentials = try await client.waitForMagicLink(wait, scope: LoginCommand.scope)
                } catch let error as SesameClientError where error.isAccessDenied {
                    throw SesameClientErrorMessage("The sign-in was refused on the other device.")
                } catch let error as SesameClientError where error.isLinkExpired {
                    throw SesameClientErrorMessage("The link expired: run the command again.")
                }
                try await completeLogin(client, credentials)
            }
        }
    }
}
