import Foundation
import Logging
import SesameCore
import SesameDelivery

/// Builds the senders the configuration names: SMTP, Twilio or an HTTP gateway, else the
/// console outbox where that is allowed (``ServerConfiguration/consoleDeliveryAllowed``),
/// else a sender that refuses: codes must not land in a production log by accident.
struct DeliveryFactory {
    let configuration: ServerConfiguration
    let storage: any EventRepository & MessageTemplateRepository
    let clock: any SesameClock
    let random: any RandomSource
    let logger: Logger

    func make() throws -> MessageDelivery {
        let console: any MessageSender =
            configuration.consoleDeliveryAllowed
            ? ConsoleSender(
                storage: storage, clock: clock, random: random, keep: configuration.settings.outboxKeep, logger: logger)
            : UnconfiguredSender()
        return MessageDelivery(
            email: try emailSender(configuration.email) ?? console,
            sms: smsSender(configuration.sms) ?? console,
            composer: TemplateMessageComposer(
                templates: try MessageTemplates(storage: storage, defaultLanguages: configuration.messageLanguages)),
            webhooks: HTTPWebhookTransport(policy: configuration.webhookAddressPolicy),
            logoutTokens: HTTPWebhookTransport(policy: Self.logoutTokenPolicy(configuration.webhookAddressPolicy)))
    }

    /// Where logout tokens may go: where webhooks may, and loopback, where an application on
    /// the same machine (or a developer's) listens. Only an operator registers the URI, the
    /// body is a fixed form with a signed token, redirects are not followed and the answer is
    /// never shown to anyone, so loopback gives a caller nothing to read; other private
    /// addresses still need `webhook_allowed_hosts`.
    static func logoutTokenPolicy(_ webhooks: WebhookAddressPolicy) -> WebhookAddressPolicy {
        var policy = webhooks
        policy.allowedRanges += ["127.0.0.0/8", "::1/128"].compactMap { IPRange($0) }
        return policy
    }

    private func emailSender(_ settings: EmailDeliverySettings) throws -> (any MessageSender)? {
        if settings.provider == "http", let url = settings.gatewayURL {
            return gateway(
                url: url, secret: settings.gatewaySecret, subject: settings.gatewaySubject,
                audience: settings.gatewayAudience, sender: settings.from)
        }
        guard settings.provider == "smtp", let host = settings.smtpHost else { return nil }
        let from = MailboxAddress(settings.from)
        let smtp = SMTPConfiguration(
            host: host, port: settings.smtpPort, fromAddress: from.address, fromName: from.name,
            username: settings.smtpUsername, password: settings.smtpPassword,
            security: SMTPConfiguration.Security(setting: settings.smtpSecurity))
        return try SMTPSender(configuration: smtp)
    }

    private func smsSender(_ settings: SMSDeliverySettings) -> (any MessageSender)? {
        switch settings.provider {
        case "twilio":
            guard let sid = settings.twilioAccountSID, let token = settings.twilioAuthToken else { return nil }
            let sender: TwilioConfiguration.Sender =
                settings.twilioMessagingServiceSID
                .map { .messagingService(sid: $0) } ?? .phoneNumber(settings.twilioFrom ?? "")
            return TwilioSender(
                configuration: TwilioConfiguration(
                    accountSID: sid, authToken: token, sender: sender, baseURL: settings.twilioBaseURL))
        case "http":
            guard let url = settings.gatewayURL else { return nil }
            return gateway(
                url: url, secret: settings.gatewaySecret, subject: settings.gatewaySubject,
                audience: settings.gatewayAudience, sender: settings.gatewaySender)
        default:
            return nil
        }
    }

    /// An HTTP gateway (email or SMS): a signed bearer token when a secret is set.
    private func gateway(url: String, secret: String?, subject: String?, audience: String?, sender: String?)
        -> HTTPGatewaySender
    {
        var gateway = HTTPGatewayConfiguration(url: url, sender: sender)
        if let secret {
            gateway.authentication = .init(subject: subject ?? "sesame", audience: audience ?? url, secret: secret)
        }
        return HTTPGatewaySender(configuration: gateway)
    }
}

/// A channel with no provider on a server others can reach: starts on it are refused (the
/// caller gets a generic provider error; the log says why).
struct UnconfiguredSender: MessageSender {
    var isConfigured: Bool { false }

    func send(_ message: OutgoingMessage) async throws {
        throw DeliveryError(message: "no \(message.channel.rawValue) provider is configured", permanent: true)
    }
}

extension SMTPConfiguration.Security {
    /// Maps the configuration words (`none`, `starttls`, `tls`), already validated on load.
    init(setting: String) {
        switch setting {
        case "none": self = .none
        case "tls": self = .tls
        default: self = .startTLS
        }
    }
}

/// `Display Name <address@host>` or a bare address, as written in `email.smtp.from`.
struct MailboxAddress: Equatable {
    var name: String?
    var address: String

    init(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") else {
            self.address = trimmed
            return
        }
        address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
        let display = trimmed[..<open].trimmingCharacters(in: .whitespaces)
            .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        name = display.isEmpty ? nil : display
    }
}
