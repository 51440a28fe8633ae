import Configuration
import Foundation
import SesameCore
import SesameParsers
import SystemPackage

extension ServerConfiguration {
    /// Reads the configuration from flags, environment, file and the settings stored in the
    /// database (lowest), and validates it.
    /// - Parameters:
    ///   - flags: values given on the command line, by config key (`port`, `data_dir`, …).
    ///   - environment: the process environment (injected for tests).
    ///   - stored: the shared settings read from the database (see ``SharedSettings``).
    /// - Throws: ``ConfigurationError`` listing every problem found, unknown keys in the file
    ///   and unknown `SESAME_*` variables included (``ConfigurationKeys``).
    public static func load(
        flags: [String: String], environment: [String: String], stored: [String: String] = [:]
    ) async throws -> ServerConfiguration {
        let sources = try await ConfigurationSources(flags: flags, environment: environment, stored: stored)
        let (providers, filePath) = (sources.providers.map(\.provider), sources.filePath)
        var problems = ConfigurationKeys.environmentProblems(environment)
        if let file = FileManager.default.contents(atPath: filePath) {
            problems += ConfigurationKeys.fileProblems(file, path: filePath)
        }
        var configuration: ServerConfiguration?
        do {
            configuration = try parse(ConfigValues(reader: ConfigReader(providers: providers)))
        } catch let error as ConfigurationError {
            problems += error.problems
        }
        guard let configuration, problems.isEmpty else { throw ConfigurationError(problems: problems) }
        return configuration
    }

    static func parse(_ values: ConfigValues) throws -> ServerConfiguration {
        let port = values.int("port", default: 3000, range: 0...65535)
        var configuration = ServerConfiguration(
            port: port, dataDirectory: values.string("data_dir", default: "./sesame-data"),
            issuer: values.optionalString("issuer"))
        configuration.host = values.string("host", default: "127.0.0.1")
        configuration.databasePath = values.optionalString("database")
        configuration.databaseURL = values.optionalString("database_url")
        configuration.databasePoolSize = values.int("database_pool_size", default: 20, range: 2...1000)
        configuration.databaseTimeout = values.int("database_timeout", default: 5, range: 1...300)
        configuration.databasePreparedStatements = values.bool("database_prepared_statements", default: true)
        configuration.masterKey = values.optionalString("master_key")
        configuration.masterKeyFile = values.optionalString("master_key_file")
        if let url = configuration.databaseURL, !(url.hasPrefix("postgres://") || url.hasPrefix("postgresql://")) {
            values.problem("database_url (SESAME_DATABASE_URL): '\(url)' must be a postgres:// URL")
        }
        configuration.trustProxy = values.bool("trust_proxy", default: false)
        configuration.trustedProxies = parseProxies(values)
        configuration.proxyHeader = parseProxyHeader(values)
        configuration.webhookAddressPolicy = parseWebhookHosts(values)
        configuration.httpIdleTimeout = values.int("http_idle_timeout", default: 30, range: 1...3600)
        configuration.httpRequestTimeout = values.int("http_request_timeout", default: 30, range: 1...3600)
        configuration.httpMaxConnectionsPerIP = values.int(
            "http_max_connections_per_ip", default: 64, range: 1...1_000_000)
        configuration.httpThreads = values.optionalInt("http_threads", range: 1...1024)
        configuration.allowConsoleDelivery = values.bool("allow_console_delivery", default: false)
        configuration.logLevel = values.choice(
            "log_level", default: "info", among: ["trace", "debug", "info", "notice", "warning", "error", "critical"])
        configuration.logFormat = values.choice("log_format", default: "text", among: ["text", "json"])
        let metricsPort = values.int("metrics.port", default: 0, range: 0...65535)
        configuration.metricsPort = metricsPort == 0 ? nil : metricsPort
        configuration.metricsHost = values.string("metrics.host", default: "127.0.0.1")
        configuration.metricsToken = values.optionalString("metrics.token")
        configuration.shutdownDelay = values.int("shutdown.delay", default: 0, range: 0...300)
        configuration.shutdownTimeout = values.int("shutdown.timeout", default: 25, range: 1...600)
        if let token = configuration.metricsToken, token.utf8.count < 16 {
            values.problem("metrics.token must be at least 16 characters: it guards the metrics on the public port")
        }
        configuration.settings = parseSettings(values, issuer: configuration.settings.issuer)
        configuration.connections = [parseConnection(values, "email"), parseConnection(values, "sms")]
        configuration.smsDefaultCountry = values.optionalString("connections.sms.default_country")
        if let country = configuration.smsDefaultCountry, PhoneNumberInput.DefaultCountry(country) == nil {
            values.problem(
                "connections.sms.default_country must be a country code like GB or a calling code like +44, not \(country)")
        }
        for connection in ["email", "sms"] {
            let language = values.string("connections.\(connection).language", default: "en").lowercased()
            configuration.messageLanguages[connection] = language
            if (try? MessageTemplateAdministration.check(name: MessageTemplateNames.layout, language: language)) == nil {
                values.problem("connections.\(connection).language must be a language code like en or fr, not \(language)")
            }
        }
        configuration.email = parseEmail(values)
        configuration.sms = parseSMS(values)
        guard values.problems.isEmpty else { throw ConfigurationError(problems: values.problems) }
        return configuration
    }

    private static func parseWebhookHosts(_ values: ConfigValues) -> WebhookAddressPolicy {
        let (policy, invalid) = WebhookAddressPolicy.parse(values.list("webhook_allowed_hosts"))
        for entry in invalid {
            values.problem(
                "webhook_allowed_hosts (SESAME_WEBHOOK_ALLOWED_HOSTS): '\(entry)' is not a host name, address or CIDR range")
        }
        return policy
    }

    private static func parseProxies(_ values: ConfigValues) -> [IPRange] {
        values.list("trusted_proxies").compactMap { entry in
            guard let range = IPRange(entry) else {
                values.problem("trusted_proxies (SESAME_TRUSTED_PROXIES): '\(entry)' is not an address or CIDR range")
                return nil
            }
            return range
        }
    }

    private static func parseProxyHeader(_ values: ConfigValues) -> ProxyHeader {
        let name = values.string("proxy_header", default: ProxyHeader.xForwardedFor.rawValue)
        guard let header = ProxyHeader(rawValue: name.lowercased()) else {
            values.problem(
                "proxy_header (SESAME_PROXY_HEADER): '\(name)' must be x-forwarded-for or forwarded, the one header "
                    + "your proxy sets (the other is passed through from the client and never believed)")
            return .xForwardedFor
        }
        return header
    }

    private static func parseSettings(_ values: ConfigValues, issuer: String) -> LoginSettings {
        let url = URL(string: issuer)
        if url == nil || !["http", "https"].contains(url?.scheme ?? "") || url?.host == nil {
            values.problem("issuer (SESAME_ISSUER): '\(issuer)' must be an http(s) URL such as https://login.example.com")
        }
        var settings = LoginSettings(issuer: issuer)
        settings.audiences = values.list("audiences")
        settings.idTokenLifetime = values.int("tokens.id_token_lifetime", default: 36000, range: 60...864_000)
        settings.accessTokenLifetime = values.int("tokens.access_token_lifetime", default: 86400, range: 60...2_592_000)
        settings.refreshTokenLifetime = values.int("tokens.refresh_token_lifetime", default: 2_592_000, range: 300...31_536_000)
        settings.jwtAccessTokenLifetime = values.int("tokens.jwt_access_token_lifetime", default: 3600, range: 60...86400)
        settings.refreshReuseInterval = TimeInterval(values.int("tokens.refresh_reuse_interval", default: 10, range: 0...300))
        settings.recentLoginWindow = values.int("tokens.recent_login_window", default: 300, range: 30...86400)
        settings.sessionIdleLifetime = values.int("sessions.idle_lifetime", default: 259_200, range: 60...31_536_000)
        settings.sessionLifetime = values.int("sessions.absolute_lifetime", default: 604_800, range: 60...31_536_000)
        settings.failureBudget = [
            RateLimitRule(
                limit: values.int("rate_limit.otp_failures_per_hour", default: 10, range: 1...10000), windowSeconds: 3600),
            RateLimitRule(
                limit: values.int("rate_limit.otp_failures_per_day", default: 30, range: 1...100_000), windowSeconds: 86400),
        ]
        settings.failureCeiling = [
            RateLimitRule(
                limit: values.int("rate_limit.otp_failures_all_sources_per_hour", default: 100, range: 1...1_000_000),
                windowSeconds: 3600),
            RateLimitRule(
                limit: values.int("rate_limit.otp_failures_all_sources_per_day", default: 300, range: 1...10_000_000),
                windowSeconds: 86400),
        ]
        settings.passkeySignupLimitPerIP = RateLimitRule(
            limit: values.int("rate_limit.passkey_register_per_ip", default: 50, range: 1...100_000_000), windowSeconds: 3600)
        settings.passkeyChallengeLimitPerIP = RateLimitRule(
            limit: values.int("rate_limit.passkey_challenge_per_ip", default: 300, range: 1...100_000_000), windowSeconds: 3600)
        settings.sweepInterval = TimeInterval(values.int("sweep_interval", default: 300, range: 10...86400))
        settings.appMetadataClaim = values.optionalString("tokens.app_metadata_claim")
        if let claim = settings.appMetadataClaim, !(claim.hasPrefix("https://") || claim.hasPrefix("http://")) {
            values.problem("tokens.app_metadata_claim must be a namespaced URL like https://example.com/app_metadata")
        }
        settings.auditRetention = TimeInterval(values.int("audit.retention_days", default: 90, range: 1...3650) * 86400)
        settings.startLimitPerIP = RateLimitRule(
            limit: values.int("rate_limit.start_per_ip", default: 50, range: 1...100_000_000),
            windowSeconds: values.int("rate_limit.start_per_ip_window", default: 3600, range: 1...86400))
        settings.startLimitPerRecipient = RateLimitRule(
            limit: values.int("rate_limit.start_per_recipient", default: 5, range: 1...100_000_000),
            windowSeconds: values.int("rate_limit.start_per_recipient_window", default: 900, range: 1...86400))
        settings.grantRefusalLimitPerIP = RateLimitRule(
            limit: values.int("rate_limit.grant_refusals_per_ip_per_minute", default: 60, range: 1...100_000_000),
            windowSeconds: 60)
        settings.passkeyRPID = values.optionalString("rp_id")
        settings.passkeyOrigins = values.list("passkey_origins")
        settings.deviceKeys.allowRSA1024 = values.bool("device_keys.allow_rsa1024", default: false)
        settings.keyRefreshInterval = TimeInterval(values.int("signing_keys.refresh_interval", default: 60, range: 1...3600))
        settings.smsCountries = parseSMSCountries(values)
        settings.delivery.backoff = DeliveryBackoff(
            base: TimeInterval(values.int("delivery.retry_delay", default: 2, range: 1...3600)),
            cap: TimeInterval(values.int("delivery.max_retry_delay", default: 300, range: 1...86400)))
        return settings
    }

    private static func parseSMSCountries(_ values: ConfigValues) -> SMSCountryPolicy {
        var policy = SMSCountryPolicy()
        let allowed = values.list("connections.sms.allowed_countries")
        if !allowed.isEmpty {
            var codes: Set<String> = []
            // `US` and `CA` name area codes of +1 (so does `JM`); `+1` admits the whole plan.
            var nanp: Set<String>? = []
            for entry in allowed {
                let iso = entry.trimmingCharacters(in: .whitespaces).uppercased()
                if SMSCountryPolicy.isNANPCountry(iso) {
                    codes.insert("1")
                    nanp?.insert(iso)
                    continue
                }
                if PhoneNumberInput.DefaultCountry(entry)?.callingCode == "1" { nanp = nil }
                guard let country = PhoneNumberInput.DefaultCountry(entry) else {
                    values.problem(
                        "connections.sms.allowed_countries: \(entry) is not a country code like GB or a calling code like +44")
                    continue
                }
                codes.insert(country.callingCode)
            }
            policy.allowedCallingCodes = codes
            if codes.contains("1") { policy.allowedNANPCountries = nanp }
        }
        policy.perCountryHourly = values.int("connections.sms.country_hourly_limit", default: 200, range: 1...100_000_000)
        policy.hourly = values.int("connections.sms.hourly_limit", default: 1000, range: 1...100_000_000)
        policy.highRiskHourly = values.int("connections.sms.high_risk_hourly_limit", default: 200, range: 1...100_000_000)
        policy.perIPHourly = values.int("connections.sms.ip_hourly_limit", default: 50, range: 1...100_000_000)
        policy.highRiskPerIPHourly = values.int(
            "connections.sms.high_risk_ip_hourly_limit", default: 10, range: 1...100_000_000)
        return policy
    }

    private static func parseConnection(_ values: ConfigValues, _ name: String) -> ConnectionOverride {
        let prefix = "connections.\(name)."
        var override = ConnectionOverride(name: name)
        override.enabled = values.optionalBool(prefix + "enabled")
        // Fewer than 6 digits makes guessing within the attempt and failure budgets too likely.
        override.codeLength = values.optionalInt(prefix + "code_length", range: 6...10)
        override.codeLifetime = values.optionalInt(prefix + "code_lifetime", range: 30...3600)
        override.maxAttempts = values.optionalInt(prefix + "max_attempts", range: 1...10)
        override.linkLifetime = values.optionalInt(prefix + "link_lifetime", range: 60...86400)
        override.disableSignup = values.optionalBool(prefix + "disable_signup")
        return override
    }

    private static func parseEmail(_ values: ConfigValues) -> EmailDeliverySettings {
        var email = EmailDeliverySettings()
        email.provider = values.choice("email.provider", default: "console", among: ["console", "smtp", "http"])
        (email.gatewayURL, email.gatewaySecret, email.gatewaySubject, email.gatewayAudience) = parseGateway(
            values, channel: "email", provider: email.provider)
        email.smtpHost = values.optionalString("email.smtp.host")
        email.smtpPort = values.int("email.smtp.port", default: 587, range: 1...65535)
        email.smtpUsername = values.optionalString("email.smtp.username")
        email.smtpPassword = values.optionalString("email.smtp.password")
        email.smtpSecurity = values.choice("email.smtp.security", default: "starttls", among: ["none", "starttls", "tls"])
        email.from = values.string("email.smtp.from", default: email.from)
        if email.provider == "smtp" && email.smtpHost == nil {
            values.problem("email.smtp.host (SESAME_EMAIL_SMTP_HOST) is required when email.provider is smtp")
        }
        return email
    }

    private static func parseSMS(_ values: ConfigValues) -> SMSDeliverySettings {
        var sms = SMSDeliverySettings()
        sms.provider = values.choice("sms.provider", default: "console", among: ["console", "twilio", "http"])
        sms.twilioAccountSID = values.optionalString("sms.twilio.account_sid")
        sms.twilioAuthToken = values.optionalString("sms.twilio.auth_token")
        sms.twilioFrom = values.optionalString("sms.twilio.from")
        sms.twilioMessagingServiceSID = values.optionalString("sms.twilio.messaging_service_sid")
        sms.twilioBaseURL = values.string("sms.twilio.base_url", default: sms.twilioBaseURL)
        (sms.gatewayURL, sms.gatewaySecret, sms.gatewaySubject, sms.gatewayAudience) = parseGateway(
            values, channel: "sms", provider: sms.provider)
        sms.gatewaySender = values.optionalString("sms.gateway.sender")
        if sms.provider == "twilio" {
            if sms.twilioAccountSID == nil || sms.twilioAuthToken == nil {
                values.problem("sms.twilio.account_sid and sms.twilio.auth_token are required when sms.provider is twilio")
            }
            if sms.twilioFrom == nil && sms.twilioMessagingServiceSID == nil {
                values.problem("sms.twilio.from or sms.twilio.messaging_service_sid is required when sms.provider is twilio")
            }
        }
        return sms
    }

    /// The `{channel}.gateway.*` keys email and SMS share; `{channel}.provider = http` needs the URL.
    private static func parseGateway(_ values: ConfigValues, channel: String, provider: String) -> (
        url: String?, secret: String?, subject: String?, audience: String?
    ) {
        let url = values.optionalString("\(channel).gateway.url")
        if provider == "http" && url == nil {
            values.problem(
                "\(channel).gateway.url (SESAME_\(channel.uppercased())_GATEWAY_URL) is required when \(channel).provider is http"
            )
        }
        return (
            url, values.optionalString("\(channel).gateway.secret"), values.optionalString("\(channel).gateway.subject"),
            values.optionalString("\(channel).gateway.audience")
        )
    }
}
