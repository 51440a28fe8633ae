/// Entry points for the `sesame-fuzz` harness (docs/fuzzing.md), not API.
///
/// Each function runs one parser over untrusted bytes and discards the result: a thrown error is
/// a correct refusal, while a trap, a leak or a hang is a bug the fuzzer reports.
@_spi(Fuzzing) public enum DeliveryFuzzing {
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
