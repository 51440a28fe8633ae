import Foundation
import SesameCore

/// Entry points for the `sesame-fuzz` harness (docs/fuzzing.md), not API.
///
/// Each function runs one parser over untrusted bytes and discards the result: a thrown error is
/// a correct refusal, while a trap, a leak or a hang is a bug the fuzzer reports.
@_spi(Fuzzing) public enum ParserFuzzing {
    /// Parses `bytes` as a request body, both as JSON and as a form, and reads every parameter
    /// with each typed accessor the controllers use; then as the hosted page's other untrusted
    /// text: `ui_locales` and `Accept-Language`, a typed phone number, a number's calling code;
    /// the management API's `q` searches, an `X-Request-Id`, an operator's message template.
    public static func requestParameters(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = UserSearch(query: text, limit: 10, offset: 0)
        var query = AuditQuery()
        try? query.apply(search: text, auditTypes: { $0 == "s" ? ["login", "user_created"] : [$0] })
        _ = RequestID.usable(text)
        _ = try? MessageTemplateSyntax.parse(text, name: "sms-code.text")
        _ = try? MessageTemplateSyntax.parse(text, name: "email-code.html")
        _ = ISO8601.date(text)
        _ = PageLanguage.choose(uiLocales: text, acceptLanguage: text, available: ["en", "fr", "pt-br"])
        _ = PhoneNumberInput.e164(text, defaultCountry: PhoneNumberInput.DefaultCountry("GB"))
        _ = SMSCountryPolicy.callingCode(of: text)
        let body = Data(bytes)
        for contentType in ["application/json", "application/x-www-form-urlencoded"] {
            guard let parameters = try? RequestParameters.parse(body: body, contentType: contentType, allowForm: true)
            else { continue }
            let refusal = SesameError.invalidRequest("fuzz")
            for key in parameters.keys {
                _ = try? parameters.string(key)
                _ = try? parameters.stringObject(key, error: refusal)
                _ = try? parameters.jsonObject(key)
                _ = try? parameters.stringMembers(key, error: refusal)
                _ = try? parameters.bool(key)
                _ = try? parameters.object(key)
                _ = try? parameters.strings(key)
            }
            _ = try? parameters.refuseUnknown(["name", "user_metadata"])
        }
    }

    /// Feeds `bytes` to an SMTP reply parser and takes replies until it needs more or refuses.
    /// The bytes arrive in two reads, split where the first byte says, as a socket would deliver
    /// them, so replies cut across reads are exercised too.
    public static func smtpReply(_ bytes: [UInt8]) {
        var parser = SMTPReplyParser()
        let split = bytes.first.map { min(Int($0), bytes.count) } ?? 0
        for chunk in [bytes[..<split], bytes[split...]] {
            parser.append(chunk)
            do {
                while try parser.nextReply() != nil {}
            } catch {
                return
            }
        }
    }
}
