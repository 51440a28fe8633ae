import Foundation

extension PasswordlessLogin {
    /// `/passwordless/start`: rate-limit, issue a code or link, and queue its message.
    ///
    /// The answer does not depend on whether the recipient has an account: a challenge and a
    /// delivery are stored either way, and the delivery is suppressed for blocked users or,
    /// when signup is disabled, for unknown ones. The message is sent by the outbox's worker.
    public func start(_ request: PasswordlessStartRequest) async throws -> PasswordlessStartResult {
        let application = try await startApplication(request)
        let connection = try await startConnection(request.connection)
        let recipient = try startRecipient(request, connection)
        let mode = try sendMode(request.send, connection)
        let now = clock.now()
        let limiter = RateLimiter(storage: storage)
        // Both counters in one storage operation; the recipient's is not counted once the
        // address is over its limit.
        let status = try await limiter.hit(
            [
                (RateLimiter.key("start", ip: request.ip), settings.startLimitPerIP),
                ("start:to:\(connection.name):\(recipient)", settings.startLimitPerRecipient),
            ], at: now)[0]
        if connection.strategy == .sms { try await checkSMSBudget(recipient, ip: request.ip, limiter: limiter, at: now) }
        try requireProvider(connection)
        let secret = mode == .code ? random.digits(max(connection.codeLength, Connection.minimumCodeLength)) : random.token(32)
        let lifetime = mode == .code ? connection.codeLifetime : connection.linkLifetime
        let challenge = Challenge(
            id: random.orderedHex(at: now), connection: connection.name, recipient: recipient, clientID: application.clientID,
            kind: mode == .code ? .code : .link, secretHash: hasher.hash(secret, purpose: .challenge),
            maxAttempts: connection.maxAttempts, createdAt: now, expiresAt: now.addingTimeInterval(Double(lifetime)))
        // The same work for every recipient: a blocked or (with signup off) unknown one gets a
        // suppressed delivery, decided by the storage from the stored account as it queues the
        // message, so neither the answer nor its timing tells them apart. The provider is not
        // called here: the worker sends after the commit.
        let content = try content(
            secret: secret, mode: mode, recipient: recipient, connection: connection, application: application,
            request: request, lifetime: lifetime)
        let queued = try outbox.leasedMessage(content, deadline: challenge.expiresAt)
        let gate = DeliveryGate(connection: connection.name, identifier: recipient, signupDisabled: connection.disableSignup)
        // The sending is audited in the challenge's own transaction: one storage operation.
        let log = AuditLog(storage: storage, clock: clock, logger: coordinator.logger)
        let sent = log.event(
            mode == .code ? .codeSent : .linkSent, client: application.clientID, ip: request.ip,
            detail: "\(connection.name) to \(recipient)", at: now)
        let delivers = try await storage.createChallenge(challenge, delivery: queued, audit: sent, gate: gate)
        SesameMetrics.codeIssued(connection: connection.name, kind: mode == .code ? "code" : "link")
        await log.published(sent)
        if delivers { await outbox.queued(handing: queued) }
        return PasswordlessStartResult(
            id: challenge.id, connection: connection.strategy, recipient: recipient, clientID: application.clientID,
            rateLimit: status)
    }

    private func startApplication(_ request: PasswordlessStartRequest) async throws -> Application {
        if let hosted = request.hostedApplication {
            guard hosted.allows(GrantType.authorizationCode) else {
                throw SesameError.grantNotAllowed(GrantType.authorizationCode)
            }
            return hosted
        }
        guard request.clientID != nil else { throw startError(.clientID, "Missing required property: client_id") }
        let application = try await ClientAuthenticator(storage: storage)
            .authenticate(clientID: request.clientID, clientSecret: request.clientSecret)
        guard application.allows(GrantType.passwordlessOTP) || application.allows(GrantType.legacyPassword) else {
            throw SesameError.grantNotAllowed(GrantType.passwordlessOTP)
        }
        return application
    }

    func startConnection(_ name: String?) async throws -> Connection {
        guard let name else { throw startError(.connection, "Missing required property: connection") }
        guard let connection = try await storage.connection(name: name) else {
            throw startError(.connection, "Connection does not exist")
        }
        guard connection.enabled else { throw startError(.connection, "Connection is disabled") }
        return connection
    }

    private func startRecipient(_ request: PasswordlessStartRequest, _ connection: Connection) throws -> String {
        switch connection.strategy {
        case .email:
            guard let raw = request.email else { throw startError(.email, "Missing required property: email") }
            guard let email = Identifier.normalizedEmail(raw) else {
                throw startError(.email, "Invalid email address: must look like name@example.com")
            }
            return email
        case .sms:
            guard let raw = request.phoneNumber else {
                throw startError(.phoneNumber, "Missing required property: phone_number")
            }
            guard let phone = Identifier.normalizedPhone(raw) else {
                throw startError(.phoneNumber, "String does not match pattern: ^\\+[0-9]{1,15}$")
            }
            return phone
        }
    }

    private func sendMode(_ raw: String?, _ connection: Connection) throws -> SendMode {
        guard let raw else { return connection.strategy == .email ? .link : .code }
        guard let mode = SendMode(rawValue: raw) else {
            throw startError(.send, "send must be one of: code, link, link_ios, link_android")
        }
        if connection.strategy == .sms && mode == .link {
            throw startError(.send, "send=link is not supported for sms: use code, link_ios or link_android")
        }
        return mode
    }

    /// The SMS-pumping defence: the number's country must be allowed, and the client address's
    /// hourly limit for the number's risk class (``SMSRiskClass``), its country's and its class's
    /// hourly budgets not spent, in that order: an address over its limit spends neither budget,
    /// so one source cannot spend a class alone, and pumping high-risk destinations never
    /// spends the low-risk budget real users depend on. Refusals are counted against the
    /// budgets they reach, and audited; they answer like a bad number, before anything is
    /// stored or sent.
    private func checkSMSBudget(_ recipient: String, ip: String, limiter: RateLimiter, at now: Date) async throws {
        let policy = settings.smsCountries
        let country = SMSCountryPolicy.country(of: recipient) ?? "unknown"
        guard policy.allows(number: recipient) else {
            let label = SMSCountryPolicy.label(of: recipient)
            await coordinator.audit(.smsRefused, detail: "\(label) is not an allowed country")
            throw startError(.phoneNumber, "Text messages to \(label) numbers are not enabled.")
        }
        let riskClass = SMSRiskClass.of(recipient)
        let budget = policy.hourlyBudget(of: riskClass)
        func hourly(_ limit: Int) -> RateLimitRule { RateLimitRule(limit: limit, windowSeconds: 3600) }
        do {
            // One storage operation; the series stops at the first limit passed.
            try await limiter.hit(
                [
                    (RateLimiter.key("sms:\(riskClass.rawValue)", ip: ip), hourly(budget.perIP)),
                    ("sms:country:\(country)", hourly(policy.perCountryHourly)),
                    ("sms:class:\(riskClass.rawValue)", hourly(budget.all)),
                ], at: now)
        } catch let error as SesameError where error.kind == .tooManyRequests {
            await coordinator.audit(
                .smsRefused,
                detail: "hourly text budget spent (\(SMSCountryPolicy.label(of: recipient)), \(riskClass.rawValue)-risk)")
            throw startError(.phoneNumber, "Text messages to this number cannot be sent right now. Try again later.")
        }
    }

    /// A channel with no provider refuses every start at once (the same for every recipient):
    /// queueing a message that can never be sent would only hide the misconfiguration.
    private func requireProvider(_ connection: Connection) throws {
        let sender = connection.strategy == .sms ? delivery.sms : delivery.email
        guard !sender.isConfigured else { return }
        let noun = connection.strategy == .sms ? "text message" : "email"
        throw SesameError(
            .noProvider(connection.strategy), "The \(noun) could not be sent. Try again later.",
            logDetail: "no \(noun) provider is configured, and console delivery is off because Sesame listens beyond "
                + "loopback (set allow_console_delivery=true to print codes to the log)")
    }

    func startError(_ property: PasswordlessStartRefusal, _ message: String) -> SesameError {
        SesameError(.passwordlessStart(property), message)
    }
}
