import ArgumentParser

/// `sesame passkey`: offline inspection of WebAuthn responses.
struct PasskeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkey",
        abstract: "Check a WebAuthn (passkey) response offline and explain why it fails.",
        discussion: """
            Paste the JSON a browser sent (PublicKeyCredential.toJSON(), or the same shape from a \
            library such as SimpleWebAuthn) on standard input, and pass the values your server used \
            for the ceremony as options. The response is checked with the same code the server runs \
            (WebAuthn Level 3, §7.1 and §7.2), without storage or network access.

            Results, for both subcommands:
              exit 0   the response verifies; standard output holds one JSON object
              exit 1   a check failed; standard output holds one line "<check>: <why>"
              exit 64  usage error (missing or malformed option, unreadable file, stdin not JSON);
                       the message goes to standard error
            """,
        subcommands: [VerifyRegistrationCommand.self, VerifyAuthenticationCommand.self])
}
