import Foundation
import SesameCore
import SesameParsers

/// The client side of one SMTP transaction as a state machine, with no I/O of its own.
///
/// The transport reads a reply, hands it to ``receive(_:)`` and carries out the returned
/// ``Action``. Keeping the dialogue here makes every branch (HELO fallback, STARTTLS,
/// AUTH, refusals) testable with scripted replies.
struct SMTPSession: Sendable {
    /// What the transport must do next.
    enum Action: Equatable, Sendable {
        /// Write these bytes, then read the next reply.
        case send([UInt8])
        /// Put TLS on the connection, then call ``SMTPSession/tlsEstablished()``.
        case startTLS
        /// The message was accepted and `QUIT` answered: close the connection.
        case finished
    }

    private enum State: Equatable, Sendable {
        case greeting, ehlo, helo, startTLS, ehloAfterTLS
        case authPlain, authLoginUser, authLoginPassword, authLoginDone
        case mailFrom, rcptTo, data, payload, quit, done
    }

    private let security: SMTPConfiguration.Security
    private let heloName: String
    private let credentials: (username: String, password: String)?
    private let email: SMTPEmail
    private var state = State.greeting
    private(set) var capabilities: Set<String> = []
    private var authMechanisms: Set<String> = []
    /// True once the server took the message: a failure after that must not be reported.
    private(set) var delivered = false

    init(configuration: SMTPConfiguration, email: SMTPEmail) {
        security = configuration.security
        heloName = configuration.heloName
        credentials = configuration.credentials
        self.email = email
    }

    /// Feeds the server's latest reply and returns what to do next.
    mutating func receive(_ reply: SMTPReply) throws(DeliveryError) -> Action {
        switch state {
        case .greeting:
            try expect(reply, 220, "refused the connection")
            return advance(to: .ehlo, command: "EHLO \(heloName)")
        case .ehlo, .ehloAfterTLS:
            if reply.code == 250 {
                readCapabilities(reply)
                return try afterHello(upgraded: state == .ehloAfterTLS)
            }
            // RFC 5321 §3.2: an old server that rejects EHLO still knows HELO; without
            // extensions, STARTTLS and AUTH are impossible, which afterHello refuses.
            guard (500...504).contains(reply.code), state == .ehlo else { throw refusal(reply, "refused EHLO") }
            return advance(to: .helo, command: "HELO \(heloName)")
        case .helo:
            try expect(reply, 250, "refused HELO")
            return try afterHello(upgraded: false)
        case .startTLS:
            try expect(reply, 220, "refused STARTTLS")
            return .startTLS
        case .authPlain, .authLoginDone:
            try expect(reply, 235, "refused the SMTP credentials")
            return mailFrom()
        case .authLoginUser, .authLoginPassword:
            try expect(reply, 334, "refused AUTH LOGIN")
            let (next, value) =
                state == .authLoginUser
                ? (State.authLoginPassword, credentials?.username ?? "")
                : (State.authLoginDone, credentials?.password ?? "")
            return advance(to: next, command: base64(value))
        case .mailFrom:
            try expect(reply, 250, "refused the sender")
            return advance(to: .rcptTo, command: "RCPT TO:<\(email.toAddress)>")
        case .rcptTo:
            guard reply.code == 250 || reply.code == 251 else { throw refusal(reply, "refused the recipient") }
            return advance(to: .data, command: "DATA")
        case .data:
            try expect(reply, 354, "refused DATA")
            state = .payload
            return .send(try SMTPMessageFormatter.render(email, allow8bit: capabilities.contains("8BITMIME")))
        case .payload:
            try expect(reply, 250, "refused the message")
            delivered = true
            return advance(to: .quit, command: "QUIT")
        case .quit, .done:
            // Any answer to QUIT will do: the message is already accepted.
            state = .done
            return .finished
        }
    }

    /// Call once TLS is up after `STARTTLS`: RFC 3207 requires a fresh EHLO.
    mutating func tlsEstablished() -> Action {
        capabilities = []
        authMechanisms = []
        return advance(to: .ehloAfterTLS, command: "EHLO \(heloName)")
    }

    private mutating func afterHello(upgraded: Bool) throws(DeliveryError) -> Action {
        if security == .startTLS && !upgraded {
            guard capabilities.contains("STARTTLS") else {
                throw DeliveryError(message: "SMTP server does not offer STARTTLS")
            }
            return advance(to: .startTLS, command: "STARTTLS")
        }
        guard let credentials else { return mailFrom() }
        // PLAIN sends both halves at once (RFC 4616); LOGIN is the older two-step variant.
        if authMechanisms.contains("PLAIN") {
            let token = base64("\u{0}\(credentials.username)\u{0}\(credentials.password)")
            return advance(to: .authPlain, command: "AUTH PLAIN \(token)")
        }
        if authMechanisms.contains("LOGIN") {
            return advance(to: .authLoginUser, command: "AUTH LOGIN")
        }
        throw DeliveryError(message: "SMTP server offers no supported authentication (PLAIN or LOGIN)")
    }

    private mutating func mailFrom() -> Action {
        let body = capabilities.contains("8BITMIME") ? " BODY=8BITMIME" : ""
        return advance(to: .mailFrom, command: "MAIL FROM:<\(email.fromAddress)>\(body)")
    }

    private mutating func readCapabilities(_ reply: SMTPReply) {
        // The first line is the server's greeting; each later line is one extension keyword.
        for line in reply.lines.dropFirst() {
            let words = line.uppercased().split(separator: " ")
            guard let keyword = words.first else { continue }
            capabilities.insert(String(keyword))
            if keyword == "AUTH" { authMechanisms.formUnion(words.dropFirst().map(String.init)) }
        }
    }

    private mutating func advance(to next: State, command: String) -> Action {
        state = next
        return .send(Array("\(command)\r\n".utf8))
    }

    private func expect(_ reply: SMTPReply, _ code: Int, _ what: String) throws(DeliveryError) {
        guard reply.code == code else { throw refusal(reply, what) }
    }

    private func refusal(_ reply: SMTPReply, _ what: String) -> DeliveryError {
        // RFC 5321: 5yz is a permanent negative reply (no such mailbox, rejected); 4yz is
        // transient (greylisting, a full queue) and worth another try.
        DeliveryError(
            message: "SMTP server \(what): \(reply.summary)", providerCode: "\(reply.code)", permanent: reply.code >= 500)
    }

    private func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }
}
