"""The sign-in flows the end-to-end suites share, as plain functions over raw HTTP.

Fixtures (servers, helper processes, databases) live in ``conftest.py``; everything a
test *does* to a server that more than one suite needs lives here. Test modules import
from this module and from ``conftest``, never from each other.

Every function takes a ``SesameServer`` (conftest.py) as ``server``. Functions named
``start_…``, ``exchange_…`` and ``refresh`` return the ``requests.Response`` unchecked,
for tests that look at refusals; ``sign_in`` and ``tokens_for_code`` assert success and
return the token response as a dict.

A complete email-code sign-in, step by step::

    assert start_code(server, "ana@example.com").status_code == 200    # 1. send a code
    code = server.last_code("ana@example.com")                          # 2. read it from the outbox
    tokens = tokens_for_code(server, "ana@example.com", code)           # 3. exchange it
    renewed = refresh(server, tokens["refresh_token"])                  # 4. refresh

or, in one call, ``sign_in(server, "ana@example.com")``.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
import requests

OTP_GRANT = "http://auth0.com/oauth/grant-type/passwordless/otp"
FULL_SCOPE = "openid profile email offline_access"

# -- PostgreSQL ---------------------------------------------------------------------------

#: The PostgreSQL server the multi-instance suites use (``scripts/test-postgres start``
#: prints one); its ``postgres`` role must be allowed to create databases.
POSTGRES_URL = os.environ.get("SESAME_TEST_POSTGRES_URL")
#: A script that can ``pause`` and ``resume`` that server (scripts/test-postgres).
POSTGRES_CONTROL = os.environ.get("SESAME_TEST_POSTGRES_CONTROL")
requires_postgres = pytest.mark.skipif(not POSTGRES_URL, reason="SESAME_TEST_POSTGRES_URL is not set")
requires_postgres_control = pytest.mark.skipif(
    not POSTGRES_CONTROL, reason="the PostgreSQL server is not ours to restart")
#: The issuer every instance of a shared-database deployment is configured with, so that
#: tokens one instance signs name the same issuer as the others.
SHARED_ISSUER = "https://login.example.test/"


# -- one-time codes -----------------------------------------------------------------------

def start_code(server, recipient: str, connection: str = "email", timeout: float = 10) -> requests.Response:
    """``POST /passwordless/start`` asking for a one-time code (``send: code``) for an email
    address (``connection="email"``) or a phone number (``connection="sms"``), as the
    server's default application. Returns the response unchecked."""
    field = "phone_number" if connection == "sms" else "email"
    return requests.post(server.url("/passwordless/start"), json={
        "client_id": server.client_id, "connection": connection, field: recipient, "send": "code"},
        timeout=timeout)


def exchange_code(server, username: str, code: str, realm: str = "email", scope: str = "openid",
                  timeout: float = 10, **extra) -> requests.Response:
    """``POST /oauth/token`` with the passwordless/otp grant: trade ``code`` for tokens.
    ``realm`` is the connection (``email`` or ``sms``), ``username`` the address or number;
    ``extra`` adds body fields (``audience``, ``nonce``). Returns the response unchecked."""
    return requests.post(server.url("/oauth/token"), json={
        "grant_type": OTP_GRANT, "client_id": server.client_id, "realm": realm, "username": username,
        "otp": code, "scope": scope, **extra}, timeout=timeout)


def tokens_for_code(server, username: str, code: str, realm: str = "email", scope: str = "openid",
                    **extra) -> dict:
    """``exchange_code`` that must succeed: returns the token response (``access_token``,
    ``id_token``, and ``refresh_token`` when ``scope`` has ``offline_access``)."""
    response = exchange_code(server, username, code, realm=realm, scope=scope, **extra)
    assert response.status_code == 200, response.text
    return response.json()


def sign_in(server, email: str, scope: str = "openid", **extra) -> dict:
    """A complete email-code sign-in on one server: start a code, read it from the server's
    console outbox (``sesame outbox``), exchange it. Returns the token response."""
    started = start_code(server, email)
    assert started.status_code == 200, started.text
    return tokens_for_code(server, email, server.last_code(email), scope=scope, **extra)


# -- tokens -------------------------------------------------------------------------------

def refresh(server, refresh_token: str, timeout: float = 10) -> requests.Response:
    """``POST /oauth/token`` with the refresh_token grant. Returns the response unchecked
    (a rotated token presented again answers 403 invalid_grant)."""
    return requests.post(server.url("/oauth/token"), json={
        "grant_type": "refresh_token", "client_id": server.client_id, "refresh_token": refresh_token},
        timeout=timeout)


def userinfo(server, access_token: str) -> requests.Response:
    """``GET /userinfo`` with ``access_token`` as the bearer token. Returns the response unchecked."""
    return requests.get(server.url("/userinfo"), headers={"Authorization": f"Bearer {access_token}"}, timeout=10)


# -- messages delivered outside the console outbox ----------------------------------------

def code_in_text(text: str) -> str:
    """The first six-digit code in ``text`` (a mail body, a Twilio request)."""
    return re.search(r"\b(\d{6})\b", text).group(1)


def code_in_mail(mail: dict) -> str:
    """The code in a mail the SMTP sink (smtp_sink.py) received."""
    return code_in_text(mail["data"])


def whole_lines(text: str) -> list:
    """The non-blank lines of a file another process is still appending to, without the last
    one until its newline is there: a record larger than the writer's buffer (an HTML mail, a
    long log line) lands in several writes."""
    return [line for line in text[:text.rfind("\n") + 1].splitlines() if line.strip()]


def read_jsonl(path: Path, count: int, timeout: float = 10) -> list:
    """The records a helper appends to a JSON-lines file (smtp_sink.py's ``--out``,
    twilio_mock.py's ``--log``), once there are at least ``count`` of them; fails the test
    if they do not arrive within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = whole_lines(path.read_text()) if path.exists() else []
        if len(lines) >= count:
            return [json.loads(line) for line in lines]
        time.sleep(0.1)
    pytest.fail(f"{path.name}: expected {count} records")


# -- the Management API through auth0-python ------------------------------------------------

def management_client(server, token: str):
    """auth0-python's ``ManagementClient``, unmodified, for ``server``: it always builds
    ``https://{domain}/api/v2``, so its ``httpx_client`` (a documented parameter) sends each
    request to the same host and path over plain http. Imported here, not at the top, so
    suites without the SDK do not pay for it."""
    import httpx
    from auth0.management import ManagementClient

    class PlainHTTP(httpx.HTTPTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            request.url = request.url.copy_with(scheme="http")
            return super().handle_request(request)

    return ManagementClient(domain=server.domain, token=token, httpx_client=httpx.Client(transport=PlainHTTP()))


# -- DPoP (RFC 9449) ----------------------------------------------------------------------

class DPoPKey:
    """A client's P-256 DPoP key that makes proofs exactly as Auth0.swift's
    ``DPoPProofGenerator`` does (Auth0/DPoP/DPoPProofGenerator.swift): header ``typ``
    ``dpop+jwt``, ``alg`` ES256 and the public ``jwk``; claims ``htm``, ``htu`` (without
    query and fragment), ``jti``, ``iat``, and ``nonce`` and ``ath`` when given."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric import ec
        self._key = ec.generate_private_key(ec.SECP256R1())
        numbers = self._key.public_key().public_numbers()
        self.jwk = {"kty": "EC", "crv": "P-256", "x": _b64(numbers.x.to_bytes(32, "big")),
                    "y": _b64(numbers.y.to_bytes(32, "big"))}

    @property
    def thumbprint(self) -> str:
        """RFC 7638: what tokens bound to this key carry as ``cnf.jkt``."""
        import hashlib
        canonical = json.dumps({k: self.jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"))
        return _b64(hashlib.sha256(canonical.encode()).digest())

    def proof(self, method: str, url: str, nonce: str | None = None, access_token: str | None = None,
              iat: int | None = None, jti: str | None = None) -> str:
        import hashlib
        import uuid
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
        header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk}
        claims = {"htm": method.upper(), "htu": url.split("?")[0].split("#")[0], "jti": jti or str(uuid.uuid4()),
                  "iat": int(time.time()) if iat is None else iat}
        if nonce is not None:
            claims["nonce"] = nonce
        if access_token is not None:
            claims["ath"] = _b64(hashlib.sha256(access_token.encode()).digest())
        signing_input = ".".join(_b64(json.dumps(part).encode()) for part in (header, claims))
        r, s = decode_dss_signature(self._key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + _b64(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def _b64(data: bytes) -> str:
    import base64
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def htu(server, path: str) -> str:
    """The URL a DPoP proof names for ``path``: the issuer's (the address clients are
    configured with), which may differ in host from the one the tests connect to."""
    return server.issuer.rstrip("/") + path


def dpop_post(server, key: DPoPKey, path: str, body: dict, headers: dict | None = None) -> requests.Response:
    """POST ``body`` as JSON with a DPoP proof, retried once with the server's nonce when it
    answers ``use_dpop_nonce`` (as Auth0.swift's ``Request`` does). Returns the last response."""
    nonce = None
    for _ in range(2):
        response = requests.post(server.url(path), json=body, timeout=10,
                                 headers={**(headers or {}), "DPoP": key.proof("POST", htu(server, path), nonce=nonce)})
        if response.status_code != 400 or response.json().get("error") != "use_dpop_nonce":
            return response
        nonce = response.headers["DPoP-Nonce"]
    return response
