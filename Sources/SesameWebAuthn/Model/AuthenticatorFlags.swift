/// The flags byte of authenticator data (§6.1, `#sctn-authenticator-data`).
public struct AuthenticatorFlags: Hashable, Sendable, CustomStringConvertible {
    /// The raw flags byte.
    public let rawValue: UInt8

    /// Creates flags from the raw byte.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Bit 0, UP: the user was present.
    public var userPresent: Bool { rawValue & 0x01 != 0 }
    /// Bit 2, UV: the user was verified (PIN, biometrics).
    public var userVerified: Bool { rawValue & 0x04 != 0 }
    /// Bit 3, BE: the credential may be backed up (a synced, multi-device passkey).
    public var backupEligible: Bool { rawValue & 0x08 != 0 }
    /// Bit 4, BS: the credential is currently backed up.
    public var backedUp: Bool { rawValue & 0x10 != 0 }
    /// Bit 6, AT: attested credential data follows the sign counter.
    public var attestedCredentialData: Bool { rawValue & 0x40 != 0 }
    /// Bit 7, ED: an extensions map ends the authenticator data.
    public var extensionData: Bool { rawValue & 0x80 != 0 }
    /// `single_device` or `multi_device`, from BE (§6.1.3).
    public var deviceType: CredentialDeviceType { backupEligible ? .multiDevice : .singleDevice }

    /// `UP UV BE BS AT ED`, listing the set flags.
    public var description: String {
        let names: [(Bool, String)] = [
            (userPresent, "UP"), (userVerified, "UV"), (backupEligible, "BE"),
            (backedUp, "BS"), (attestedCredentialData, "AT"), (extensionData, "ED"),
        ]
        return names.filter(\.0).map(\.1).joined(separator: " ")
    }
}

/// Whether a credential is bound to one device or may sync (§6.1.3, from the BE flag).
public enum CredentialDeviceType: String, Sendable, Hashable {
    /// BE clear: the credential never leaves its authenticator.
    case singleDevice = "single_device"
    /// BE set: a synced passkey.
    case multiDevice = "multi_device"
}
