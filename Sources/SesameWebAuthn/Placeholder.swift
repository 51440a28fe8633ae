// SesameWebAuthn
