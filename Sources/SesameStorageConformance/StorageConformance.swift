import Foundation
import SesameCore

/// The storage contract every backend passes unchanged (dex `storage/conformance`, kratos
/// contract tests): CRUD per aggregate, duplicates, expiry against a test clock, and the
/// single-use guarantees under concurrency.
public enum StorageConformance {
    /// Every check, in a stable order.
    public static var checks: [ConformanceCheck] {
        UserChecks.all + ApplicationChecks.all + ChallengeChecks.all + ChallengeRetryChecks.all + SessionChecks.all
            + LinkRequestChecks.all
            + DeliveryChecks.all + WebhookChecks.all + MessageTemplateChecks.all + AuditChecks.all + UserSearchChecks.all
            + GrantChecks.all
            + SupportChecks.all
            + PasskeyChecks.all + DeviceKeyChecks.all + SettingsChecks.all + SecurityChecks.all + VerificationChecks.all
            + CodeReplayChecks.all + MachineClientChecks.all + AccessControlChecks.all + JobChecks.all + DPoPChecks.all
    }
}
