/// How a person signed in, as the audit log records it.
public enum LoginMethod: String, Sendable, CaseIterable {
    /// A one-time code at the token endpoint.
    case otp
    /// A one-time code at Auth0's legacy `/oauth/ro`.
    case otpLegacy = "otp_legacy"
    /// A magic link confirmed in the browser.
    case magicLink = "magic_link"
    /// A one-time code on the hosted `/authorize` page.
    case hostedOTP = "hosted_otp"
    /// A passkey on the hosted `/authorize` page.
    case hostedPasskey = "hosted_passkey"
    /// A passkey through the native Passkey API (webauthn grant).
    case passkey
    /// A device key with the JWT-bearer grant.
    case deviceKey = "device_key"
    /// A device key through TouchIDAuth's `/oauth/ro` form.
    case deviceKeyLegacy = "device_key_legacy"
}

/// What an audit event records; the raw value is what is stored and listed.
public enum AuditEventType: String, Sendable, CaseIterable {
    case login
    /// A one-time code or a magic link was issued (and queued for sending).
    case codeSent = "code_sent"
    case linkSent = "link_sent"
    /// A user signed in for the first time (the record was created by this login or the
    /// passkey signup just before it).
    case userCreated = "user_created"
    case loginRefused = "login_refused"
    case otpFailed = "otp_failed"
    case otpFailureBudgetExhausted = "otp_failure_budget_exhausted"
    /// The owner of an address was warned by email that someone is guessing its codes.
    case addressUnderAttack = "address_under_attack"
    /// A text message was refused by the SMS-pumping defence (country or hourly budget).
    case smsRefused = "sms_refused"
    /// The outbox gave up on a message or webhook call (a permanent refusal, or its deadline).
    case deliveryFailed = "delivery_failed"
    /// An operator added or removed a webhook endpoint.
    case webhookCreated = "webhook_created"
    case webhookDeleted = "webhook_deleted"
    /// An operator replaced or reset a message template.
    case templateSet = "template_set"
    case templateReset = "template_reset"
    /// An operator (CLI or management API) changed applications, users or signing keys.
    case applicationCreated = "application_created"
    case applicationUpdated = "application_updated"
    case applicationDeleted = "application_deleted"
    case userUpdated = "user_updated"
    /// An operator changed an API, a role, or the roles and permissions given to a user.
    case accessControlChanged = "access_control_changed"
    /// A machine-to-machine application got a token with `client_credentials`.
    case machineToken = "machine_token"
    case signingKeyRotated = "signing_key_rotated"
    case signingKeyRetired = "signing_key_retired"
    case addressVerified = "address_verified"
    case passkeyRegistered = "passkey_registered"
    case passkeyFailed = "passkey_failed"
    case passkeyDeleted = "passkey_deleted"
    case passkeyDisabled = "passkey_disabled"
    case passkeyEnabled = "passkey_enabled"
    case deviceCredentialRegistered = "device_credential_registered"
    case deviceCredentialDeleted = "device_credential_deleted"
    case deviceKeyRefused = "device_key_refused"
    case refreshTokenReuse = "refresh_token_reuse"
    case refreshTokenRetry = "refresh_token_retry"
    /// An operator revoked a refresh token (its family) through the management API.
    case refreshTokenRevoked = "refresh_token_revoked"
    case userBlocked = "user_blocked"
    case userUnblocked = "user_unblocked"
    case userDeleted = "user_deleted"
    /// A browser session gave a code without asking (single sign-on, silent authentication).
    case sessionLogin = "session_login"
    /// A browser session ended: logout, the person, an administrator.
    case sessionEnded = "session_ended"
    /// A magic link was confirmed on another device with the right match code.
    case linkRequestApproved = "link_request_approved"
    /// A magic link was refused on another device: a wrong match code, or "It wasn't me".
    case linkRequestDenied = "link_request_denied"
}
