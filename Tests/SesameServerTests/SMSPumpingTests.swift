import Foundation
import HTTPTypes
import HummingbirdTesting
import SesameAPI
import SesameCore
import SesameServer
import SesameStorageConformance
import Testing

/// SMS pumping (toll fraud): bots ask for codes to premium-rate numbers whose revenue the
/// attacker shares, at the deployment's expense. Refusals answer like a bad number and cost
/// nothing: no challenge is stored and no message is sent.
@Suite("Attacks: SMS pumping is stopped by country allow-lists and hourly budgets")
struct SMSPumpingTests {
    func start(_ h: Harness, _ phone: String, from ip: String = "198.51.100.7") async throws -> TestResponse {
        try await h.post(
            "/passwordless/start", ["client_id": h.clientID, "connection": "sms", "phone_number": phone],
            headers: [HTTPField.Name("X-Forwarded-For")!: ip])
    }

    /// Attack: thousands of codes to numbers in one premium range. With the defaults, the
    /// country's hourly budget stops it after 200, while a real sign-up wave elsewhere passes.
    @Test("defaults: a premium range is cut off at its country's budget; sign-ups elsewhere still pass")
    func countryBudget() async throws {
        try await Harness.run { h in
            var refused = 0
            for n in 0..<220 {
                let response = try await start(h, "+882\(String(format: "%08d", n))", from: "203.0.113.\(n % 200)")
                if response.status == .badRequest {
                    #expect(response.error?.error == "bad.phone_number")
                    refused += 1
                }
            }
            #expect(refused == 20, "200 texts an hour to +882, then none")
            #expect(h.sender.sent(to: "+88200000210").isEmpty, "a refused number is not texted")
            for n in 0..<50 {
                #expect(try await start(h, "+1415555\(String(format: "%04d", n))").status == .ok, "a sign-up wave")
            }
            let audit = try await h.sesame.storage.recentAuditEvents(limit: 500)
            #expect(audit.filter { $0.type == "sms_refused" }.count == 20)
            h.clock.advance(by: 3600)
            #expect(try await start(h, "+88299999999").status == .ok, "the next hour has a new budget")
        }
    }

    @Test("the allow-list: a number of another country is refused before anything is stored or sent")
    func allowList() async throws {
        try await Harness.run(configure: { $0.smsCountries.allowedCallingCodes = ["1", "44"] }) { h in
            let refused = try await start(h, "+33612345678")
            #expect(refused.status == .badRequest && refused.error?.error == "bad.phone_number")
            #expect(refused.error?.errorDescription == "Text messages to +33 numbers are not enabled.")
            #expect(h.sender.sent(to: "+33612345678").isEmpty)
            #expect(try await start(h, "+447700900123").status == .ok)
            #expect(try await start(h, "+14155550123").status == .ok)
        }
    }

    /// Attack: pumping through `+1` premium ranges of the Caribbean (Jamaica's 876, the Dominican
    /// Republic's 809, the Turks and Caicos' 649) into a deployment that allows only the United
    /// States and Canada: they share the calling code, so only the area code tells them apart.
    @Test("allowed_countries=US,CA refuses Caribbean +1 numbers (876, 809, 649) and admits US and Canadian ones")
    func caribbeanNANPNumbersUnderUSAndCanada() async throws {
        let policy = try await ServerConfiguration.load(
            flags: SMSCountryConfigTests.noFile, environment: ["SESAME_CONNECTIONS_SMS_ALLOWED_COUNTRIES": "US,CA"]
        ).settings.smsCountries
        try await Harness.run(configure: { $0.smsCountries = policy }) { h in
            for number in ["+18765550123", "+18095550123", "+16495550123", "+12645550123", "+18005550123", "+19005550123"] {
                let refused = try await start(h, number)
                #expect(refused.status == .badRequest && refused.error?.error == "bad.phone_number", "\(number)")
                #expect(h.sender.sent(to: number).isEmpty)
            }
            let jamaica = try await start(h, "+18765550199")
            #expect(jamaica.error?.errorDescription == "Text messages to +1 876 numbers are not enabled.")
            #expect(try await start(h, "+14155550123").status == .ok, "San Francisco")
            #expect(try await start(h, "+14165550123").status == .ok, "Toronto")
            #expect(try await start(h, "+16045550123").status == .ok, "Vancouver")
        }
        #expect(SMSCountryPolicy.country(of: "+14165550123") == "1-CA")
        #expect(SMSCountryPolicy.country(of: "+14155550123") == "1-US")
        #expect(SMSCountryPolicy.country(of: "+18765550123") == "1-JM")
        var onlyCanada = SMSCountryPolicy()
        onlyCanada.allowedCallingCodes = ["1"]
        onlyCanada.allowedNANPCountries = ["CA"]
        #expect(onlyCanada.allows(number: "+15145550123") && !onlyCanada.allows(number: "+12125550123"))
        let wholePlan = try await ServerConfiguration.load(
            flags: SMSCountryConfigTests.noFile, environment: ["SESAME_CONNECTIONS_SMS_ALLOWED_COUNTRIES": "US,+1"]
        ).settings.smsCountries
        #expect(wholePlan.allows(number: "+18765550123"), "+1 admits the whole plan")
    }

    /// Attack: the same pumping spread over many countries to stay under each one's budget.
    @Test("the global hourly budget caps an attack spread over many countries")
    func globalBudget() async throws {
        try await Harness.run(configure: { $0.smsCountries.hourly = 5 }) { h in
            let numbers = ["+33612345678", "+4915112345678", "+390212345678", "+34612345678", "+48512345678"]
            for number in numbers {
                let sent = try await start(h, number)
                #expect(sent.status == .ok)
            }
            let over = try await start(h, "+81312345678")
            #expect(over.status == .badRequest)
        }
    }

    /// Attack (denial of service through the budget): the deployment-wide hourly budget was one
    /// for every destination, so anyone could spend it on premium-rate numbers, after which every
    /// legitimate user was refused. High-risk destinations now have their own budget, each
    /// client address a limit per class checked first: one address cannot spend a class alone,
    /// and a spent high-risk class refuses no one texting a low-risk number.
    @Test("one address pumping high-risk numbers spends neither class; a spent high-risk class still texts low-risk numbers")
    func riskClassBudgets() async throws {
        try await Harness.run(configure: {
            $0.smsCountries.hourly = 20
            $0.smsCountries.highRiskHourly = 25
        }) { h in
            // Premium ranges spread over countries, under each country's budget.
            let premium = ["+88212345", "+88112345", "+5351234", "+25261234", "+67571234", "+37061234"]
            func number(_ n: Int) -> String { premium[n % premium.count] + String(format: "%03d", n) }
            var sent = 0
            for n in 0..<30 where try await start(h, number(n), from: "203.0.113.66").status == .ok { sent += 1 }
            #expect(sent == 10, "one address: its high-risk limit, far below the class's budget")
            #expect(h.sender.sent(to: number(29)).isEmpty)
            // Many addresses together do spend the high-risk class...
            for n in 30..<60 { _ = try await start(h, number(n), from: "203.0.113.\(n / 10)") }
            let spent = try await start(h, number(60), from: "203.0.113.200")
            #expect(spent.status == .badRequest && spent.error?.error == "bad.phone_number")
            // ...and a legitimate low-risk number from another address is still texted.
            #expect(try await start(h, "+447700900123", from: "198.51.100.20").status == .ok)
            #expect(h.code(for: "+447700900123") != nil)
            #expect(try await start(h, "+14155550123", from: "198.51.100.21").status == .ok)
            let refusals = try await h.sesame.storage.recentAuditEvents(limit: 100).filter { $0.type == "sms_refused" }
            #expect(refusals.allSatisfy { $0.detail.contains("high-risk") })
        }
    }

    @Test("risk classes: premium, satellite and Caribbean +1 destinations are high-risk; the US, Canada, Europe low")
    func riskClasses() {
        for number in ["+88212345678", "+8816123456", "+5351234567", "+18765550123", "+18095550123", "+19005550123"] {
            #expect(SMSRiskClass.of(number) == .high, "\(number)")
        }
        for number in ["+14155550123", "+14165550123", "+447700900123", "+33612345678", "+4915112345678", "+81312345678"] {
            #expect(SMSRiskClass.of(number) == .low, "\(number)")
        }
    }

    @Test("calling codes of E.164 numbers")
    func callingCodes() {
        #expect(SMSCountryPolicy.callingCode(of: "+14155550123") == "1")
        #expect(SMSCountryPolicy.callingCode(of: "+79123456789") == "7")
        #expect(SMSCountryPolicy.callingCode(of: "+447700900123") == "44")
        #expect(SMSCountryPolicy.callingCode(of: "+35312345678") == "353")
        #expect(SMSCountryPolicy.callingCode(of: "+88212345678") == "882")
        #expect(SMSCountryPolicy.callingCode(of: "+0123") == nil)
    }
}

@Suite("Configuration: the SMS-pumping defence and the email gateway")
struct SMSCountryConfigTests {
    static let noFile = ["data_dir": FileManager.default.temporaryDirectory.appendingPathComponent("sesame-none-\(UUID())").path]

    @Test("allowed countries by ISO or calling code; budgets; a bad country is reported")
    func parse() async throws {
        let defaults = try await ServerConfiguration.load(flags: Self.noFile, environment: [:]).settings.smsCountries
        #expect(defaults == SMSCountryPolicy())
        let configured = try await ServerConfiguration.load(
            flags: Self.noFile,
            environment: [
                "SESAME_CONNECTIONS_SMS_ALLOWED_COUNTRIES": "US, gb,+49", "SESAME_CONNECTIONS_SMS_HOURLY_LIMIT": "300",
                "SESAME_CONNECTIONS_SMS_COUNTRY_HOURLY_LIMIT": "50",
            ]
        ).settings.smsCountries
        #expect(configured.allowedCallingCodes == ["1", "44", "49"])
        #expect(configured.allowedNANPCountries == ["US"], "US names area codes of +1, not the whole plan")
        #expect(configured.hourly == 300 && configured.perCountryHourly == 50)
        #expect(configured.highRiskHourly == 200 && configured.perIPHourly == 50 && configured.highRiskPerIPHourly == 10)
        let classes = try await ServerConfiguration.load(
            flags: Self.noFile,
            environment: [
                "SESAME_CONNECTIONS_SMS_HIGH_RISK_HOURLY_LIMIT": "40", "SESAME_CONNECTIONS_SMS_IP_HOURLY_LIMIT": "20",
                "SESAME_CONNECTIONS_SMS_HIGH_RISK_IP_HOURLY_LIMIT": "3",
            ]
        ).settings.smsCountries
        #expect(classes.highRiskHourly == 40 && classes.perIPHourly == 20 && classes.highRiskPerIPHourly == 3)
        #expect(classes.hourly == 1000, "hourly_limit is still the low-risk class's budget")
        await #expect(throws: ConfigurationError.self) {
            _ = try await ServerConfiguration.load(
                flags: Self.noFile, environment: ["SESAME_CONNECTIONS_SMS_ALLOWED_COUNTRIES": "XX"])
        }
    }

    @Test("email.provider=http needs email.gateway.url; with its token settings")
    func emailGateway() async throws {
        await #expect(throws: ConfigurationError.self) {
            _ = try await ServerConfiguration.load(flags: Self.noFile, environment: ["SESAME_EMAIL_PROVIDER": "http"])
        }
        let email = try await ServerConfiguration.load(
            flags: Self.noFile,
            environment: [
                "SESAME_EMAIL_PROVIDER": "http", "SESAME_EMAIL_GATEWAY_URL": "https://mail.example.com/send",
                "SESAME_EMAIL_GATEWAY_SECRET": "s3cret",
            ]
        ).email
        #expect(email.gatewayURL == "https://mail.example.com/send" && email.gatewaySecret == "s3cret")
    }
}
