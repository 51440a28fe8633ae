"""A minimal software WebAuthn authenticator for end-to-end tests of the Passkey API.

One ES256 (P-256) key per authenticator, "none" attestation, a signature counter, and the
JSON shapes of ``PublicKeyCredential.toJSON()`` (base64url binary members) that Sesame's
webauthn grant takes as ``authn_response``::

    authenticator = SoftAuthenticator(origin="https://login.example.test")
    challenge = requests.post(".../passkey/register", json={...}).json()
    credential = authenticator.create(challenge["authn_params_public_key"])
    ...
    challenge = requests.post(".../passkey/challenge", json={...}).json()
    assertion = authenticator.get(challenge["authn_params_public_key"])

The RP ID comes from the options (``rp.id`` / ``rpId``); the origin is what a browser on
that origin would put in clientDataJSON. Only what these tests need is implemented: no
extensions, no allowCredentials handling (the key is always discoverable), no attestation
formats other than "none".
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

# Authenticator data flags (WebAuthn §6.1).
UP = 0x01  # user present
UV = 0x04  # user verified
AT = 0x40  # attested credential data included


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# -- CBOR (RFC 8949), just the types WebAuthn needs, in canonical (shortest) form ---------

def _head(major: int, value: int) -> bytes:
    if value < 24:
        return bytes([major << 5 | value])
    if value < 0x100:
        return bytes([major << 5 | 24, value])
    if value < 0x10000:
        return bytes([major << 5 | 25]) + struct.pack(">H", value)
    if value < 0x100000000:
        return bytes([major << 5 | 26]) + struct.pack(">I", value)
    return bytes([major << 5 | 27]) + struct.pack(">Q", value)


def cbor(value) -> bytes:
    """Encodes ints (also negative), bytes, text and maps (dicts, in insertion order)."""
    if isinstance(value, bool):
        raise TypeError("booleans are not needed here")
    if isinstance(value, int):
        return _head(0, value) if value >= 0 else _head(1, -1 - value)
    if isinstance(value, (bytes, bytearray)):
        return _head(2, len(value)) + bytes(value)
    if isinstance(value, str):
        encoded = value.encode("utf-8")
        return _head(3, len(encoded)) + encoded
    if isinstance(value, dict):
        return _head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError(f"cannot encode {type(value).__name__} as CBOR")


# -- the authenticator ------------------------------------------------------------------

class SoftAuthenticator:
    """One discoverable ES256 credential, made by :meth:`create` and used by :meth:`get`."""

    def __init__(self, origin: str, user_verified: bool = True) -> None:
        self.origin = origin
        self.flags = UP | (UV if user_verified else 0)
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.user_handle: bytes | None = None
        self.sign_count = 0

    def cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        # kty: EC2, alg: ES256, crv: P-256, x, y (keys in canonical order: 1, 3, -1, -2, -3).
        return cbor({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})

    def client_data(self, kind: str, challenge: str) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": self.origin,
                           "crossOrigin": False}, separators=(",", ":")).encode()

    def authenticator_data(self, rp_id: str, attested: bool) -> bytes:
        data = hashlib.sha256(rp_id.encode()).digest()
        data += bytes([self.flags | (AT if attested else 0)]) + struct.pack(">I", self.sign_count)
        if attested:
            data += bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + self.cose_key()
        return data

    def create(self, options: dict) -> dict:
        """The ``RegistrationResponseJSON`` for ``navigator.credentials.create(options)``."""
        self.user_handle = b64url_decode(options["user"]["id"])
        client_data = self.client_data("webauthn.create", options["challenge"])
        auth_data = self.authenticator_data(options["rp"]["id"], attested=True)
        attestation = cbor({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
            "authenticatorAttachment": "platform", "clientExtensionResults": {},
            "response": {"clientDataJSON": b64url(client_data), "attestationObject": b64url(attestation),
                         "transports": ["internal"]},
        }

    def get(self, options: dict) -> dict:
        """The ``AuthenticationResponseJSON`` for ``navigator.credentials.get(options)``;
        every call counts one more signature, as a hardware authenticator does."""
        self.sign_count += 1
        client_data = self.client_data("webauthn.get", options["challenge"])
        auth_data = self.authenticator_data(options["rpId"], attested=False)
        signature = self.key.sign(auth_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        response = {"clientDataJSON": b64url(client_data), "authenticatorData": b64url(auth_data),
                    "signature": b64url(signature)}
        if self.user_handle is not None:
            response["userHandle"] = b64url(self.user_handle)
        return {
            "id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
            "authenticatorAttachment": "platform", "clientExtensionResults": {}, "response": response,
        }
