"""Independent OpenID Connect / JOSE checks of Sesame with joserfc.

Nothing here uses Auth0 code: discovery, the JWKS, ID tokens and JWT access
tokens are checked against the OIDC / RFC 7517-7519 rules directly, and a few
forged tokens are thrown at /userinfo to make sure signatures are enforced.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from urllib.parse import urlsplit

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

from flows import FULL_SCOPE, OTP_GRANT, exchange_code, sign_in, start_code, userinfo

API = "https://api.example.com"
PRIVATE_RSA_MEMBERS = {"d", "p", "q", "dp", "dq", "qi", "oth"}


# -- helpers -----------------------------------------------------------------


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_json(obj) -> str:
    return b64url(json.dumps(obj, separators=(",", ":")).encode())


def unverified_header(token: str) -> dict:
    part = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def discovery(sesame) -> dict:
    response = requests.get(sesame.url("/.well-known/openid-configuration"), timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    return response.json()


def jwks(sesame) -> dict:
    response = requests.get(sesame.url("/.well-known/jwks.json"), timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def key_set(sesame) -> KeySet:
    return KeySet.import_key_set(jwks(sesame))


def assert_invalid_token(response: requests.Response):
    assert response.status_code == 401, response.text
    assert response.json()["error"] == "invalid_token"
    assert response.headers.get("WWW-Authenticate", "").startswith("Bearer")


def verify_jwt(sesame, token: str):
    """Verify signature with the published JWKS (RS256 only) and return the token."""
    header = unverified_header(token)
    assert header["alg"] == "RS256"
    kids = [k["kid"] for k in jwks(sesame)["keys"]]
    assert header.get("kid") in kids, f"kid {header.get('kid')!r} not in JWKS {kids}"
    return jwt.decode(token, key_set(sesame), algorithms=["RS256"])


def api_access_token(sesame, email) -> tuple[dict, dict]:
    """Log in for the API audience; return (token response, verified access-token claims)."""
    tokens = sign_in(sesame, email, scope=FULL_SCOPE, audience=API)
    return tokens, verify_jwt(sesame, tokens["access_token"]).claims


# -- discovery and JWKS --------------------------------------------------------


def test_discovery_document(sesame):
    """/.well-known/openid-configuration carries the issuer (with the trailing
    slash Auth0 uses) and endpoints under it, advertises RS256 ID tokens and
    the passwordless OTP grant."""
    doc = discovery(sesame)
    issuer = doc["issuer"]
    assert issuer == sesame.issuer
    assert issuer.endswith("/")
    assert doc["jwks_uri"] == issuer + ".well-known/jwks.json"
    assert doc["token_endpoint"] == issuer + "oauth/token"
    assert doc["userinfo_endpoint"] == issuer + "userinfo"
    assert doc["revocation_endpoint"] == issuer + "oauth/revoke"
    assert doc["id_token_signing_alg_values_supported"] == ["RS256"]
    assert "public" in doc["subject_types_supported"]
    assert "openid" in doc["scopes_supported"]
    assert OTP_GRANT in doc["grant_types_supported"]
    assert "refresh_token" in doc["grant_types_supported"]
    assert doc["response_types_supported"]


def test_discovery_has_required_authorization_endpoint(sesame):
    """OpenID Connect Discovery 1.0 §3 lists `authorization_endpoint` as REQUIRED
    (and Sesame advertises response_types_supported / authorization_code, which
    only make sense with one)."""
    doc = discovery(sesame)
    assert doc.get("authorization_endpoint", "").startswith(doc["issuer"]), doc


def test_default_issuer_uses_the_bound_port(sesame):
    """Without --issuer the issuer defaults to http://localhost:<port>/; with
    --port 0 that must be the port actually bound, otherwise discovery points
    every client at an unreachable `:0` and the issuer can never match the URL
    discovery was fetched from (OIDC Discovery §4.3)."""
    doc = discovery(sesame)
    parts = urlsplit(doc["issuer"])
    assert parts.hostname in ("localhost", "127.0.0.1")
    assert parts.port == sesame.port, f"issuer {doc['issuer']!r} but server listens on port {sesame.port}"
    jwks_uri = urlsplit(doc["jwks_uri"])
    assert jwks_uri.port == sesame.port


@pytest.mark.sesame_args("--issuer", "https://login.example.test")
def test_explicit_issuer_is_normalised_and_used_everywhere(sesame):
    """--issuer https://login.example.test (no slash) becomes the issuer
    https://login.example.test/ in discovery, the endpoints and the ID token's
    `iss`, matched exactly."""
    doc = discovery(sesame)
    assert doc["issuer"] == "https://login.example.test/"
    assert doc["jwks_uri"] == "https://login.example.test/.well-known/jwks.json"
    assert doc["token_endpoint"] == "https://login.example.test/oauth/token"
    claims = verify_jwt(sesame, sign_in(sesame, "iss@example.com", scope=FULL_SCOPE)["id_token"]).claims
    assert claims["iss"] == "https://login.example.test/"


def test_jwks_has_only_public_rsa_signing_keys(sesame):
    """Every JWKS key is a public RS256 signing key: kty RSA (auth0-python parses
    every key as RSA), a unique kid, and no private members (a leaked `d`
    would let anyone mint tokens)."""
    keys = jwks(sesame)["keys"]
    assert keys, "JWKS is empty"
    kids = [k.get("kid") for k in keys]
    assert all(kids) and len(set(kids)) == len(kids), kids
    for key in keys:
        assert key["kty"] == "RSA", key
        assert key.get("use", "sig") == "sig"
        assert key.get("alg", "RS256") == "RS256"
        assert key["n"] and key["e"]
        assert not PRIVATE_RSA_MEMBERS & key.keys(), f"private key material published: {sorted(key)}"
        imported = RSAKey.import_key(key)
        assert not imported.is_private
        assert imported.raw_value.key_size >= 2048


# -- ID token ----------------------------------------------------------------


def test_id_token_signature_and_claims(sesame):
    """The ID token is an RS256 JWS whose kid names a JWKS key; its signature
    verifies with joserfc and its claims follow OIDC Core §2: iss exactly the
    issuer, aud the client_id, integer iat/exp with exp > iat, a sub, and the
    nonce that was sent."""
    tokens = sign_in(sesame, "jose@example.com", scope=FULL_SCOPE, nonce="jose-nonce-1")
    token = verify_jwt(sesame, tokens["id_token"])
    assert token.header["alg"] == "RS256"

    claims = token.claims
    assert claims["iss"] == sesame.issuer
    assert claims["aud"] == sesame.client_id or claims["aud"] == [sesame.client_id]
    assert type(claims["iat"]) is int and type(claims["exp"]) is int
    assert claims["exp"] > claims["iat"]
    assert isinstance(claims["sub"], str) and claims["sub"].startswith("email|")
    assert claims["nonce"] == "jose-nonce-1"
    assert claims["email"] == "jose@example.com"

    registry = jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": sesame.issuer},
        aud={"essential": True, "value": sesame.client_id},
        sub={"essential": True},
        exp={"essential": True},
        iat={"essential": True},
        nonce={"essential": True, "value": "jose-nonce-1"},
        leeway=0,
    )
    registry.validate(claims)

    info = userinfo(sesame, tokens["access_token"])
    assert info.status_code == 200, info.text
    assert info.json()["sub"] == claims["sub"]


def test_id_token_is_not_an_access_token(sesame):
    """/userinfo refuses an ID token presented as a bearer token (token
    confusion: ID tokens are for the client, not for APIs)."""
    tokens = sign_in(sesame, "confuse@example.com", scope=FULL_SCOPE)
    assert_invalid_token(userinfo(sesame, tokens["id_token"]))


# -- JWT access tokens for an API audience --------------------------------------


@pytest.mark.sesame_env(SESAME_AUDIENCES=API)
def test_audience_yields_rs256_jwt_access_token(sesame):
    """With `audience` set to a configured API the access token is an RS256 JWT
    verifiable with the JWKS: aud = [api, issuer + "userinfo"], azp = client_id,
    iss, sub equal to the ID token's, integer iat/exp, the granted scope; and it
    works at /userinfo."""
    tokens, claims = api_access_token(sesame, "api@example.com")
    id_claims = verify_jwt(sesame, tokens["id_token"]).claims

    assert claims["aud"] == [API, sesame.issuer + "userinfo"]
    assert claims["azp"] == sesame.client_id
    assert claims["iss"] == sesame.issuer
    assert claims["sub"] == id_claims["sub"]
    assert type(claims["iat"]) is int and type(claims["exp"]) is int
    assert claims["exp"] > claims["iat"]
    assert set(claims["scope"].split()) == set(tokens["scope"].split())

    info = userinfo(sesame, tokens["access_token"])
    assert info.status_code == 200, info.text
    assert info.json()["sub"] == claims["sub"]
    assert info.json()["email"] == "api@example.com"


@pytest.mark.sesame_env(SESAME_AUDIENCES=API)
def test_refresh_keeps_the_audience(sesame):
    """A refresh grant for a token obtained with an audience returns a new JWT
    access token for that same API."""
    tokens, _ = api_access_token(sesame, "api-refresh@example.com")
    response = requests.post(
        sesame.url("/oauth/token"),
        json={"grant_type": "refresh_token", "client_id": sesame.client_id,
              "refresh_token": tokens["refresh_token"]},
        timeout=10,
    )
    assert response.status_code == 200, response.text
    claims = verify_jwt(sesame, response.json()["access_token"]).claims
    assert claims["aud"] == [API, sesame.issuer + "userinfo"]


@pytest.mark.sesame_env(SESAME_AUDIENCES=API)
def test_unknown_audience_is_refused(sesame):
    """An audience that is not a configured API is refused like Auth0 does
    (403 access_denied "Service not found: <aud>") instead of minting a token
    for an arbitrary resource server."""
    start_code(sesame, "aud@example.com")
    response = exchange_code(sesame, "aud@example.com", sesame.last_code("aud@example.com"),
                             audience="https://evil.example.com")
    assert response.status_code == 403, response.text
    assert response.json() == {"error": "access_denied",
                               "error_description": "Service not found: https://evil.example.com"}


# -- forged tokens at /userinfo ---------------------------------------------------


@pytest.mark.sesame_env(SESAME_AUDIENCES=API)
def test_token_signed_by_another_key_with_same_kid_is_rejected(sesame):
    """A token with genuine claims and the server's kid but signed by an
    attacker's RSA key is refused by /userinfo with 401 invalid_token (the
    server must verify the signature with its own key, not trust the kid)."""
    tokens, claims = api_access_token(sesame, "forge@example.com")
    kid = unverified_header(tokens["access_token"])["kid"]
    attacker_key = RSAKey.generate_key(2048, parameters={"kid": kid})
    forged = jwt.encode({"alg": "RS256", "kid": kid, "typ": "JWT"}, dict(claims), attacker_key)
    assert unverified_header(forged)["kid"] == kid
    assert userinfo(sesame, tokens["access_token"]).status_code == 200
    assert_invalid_token(userinfo(sesame, forged))


@pytest.mark.sesame_env(SESAME_AUDIENCES=API)
def test_unsigned_alg_none_token_is_rejected(sesame):
    """A token with `alg: none` and an empty signature is refused (stops the
    classic unsigned-JWT bypass)."""
    tokens, claims = api_access_token(sesame, "none@example.com")
    kid = unverified_header(tokens["access_token"])["kid"]
    for alg in ("none", "None", "NONE"):
        forged = f"{b64url_json({'alg': alg, 'kid': kid, 'typ': 'JWT'})}.{b64url_json(claims)}."
        assert_invalid_token(userinfo(sesame, forged))


@pytest.mark.sesame_env(SESAME_AUDIENCES=API)
def test_hs256_with_public_key_as_secret_is_rejected(sesame):
    """A token switched to HS256 and HMAC-signed with the server's *public* RSA
    key (as JWK JSON, n, or DER/PEM) is refused (stops RS256→HS256 algorithm
    confusion)."""
    tokens, claims = api_access_token(sesame, "hs256@example.com")
    kid = unverified_header(tokens["access_token"])["kid"]
    public = RSAKey.import_key(next(k for k in jwks(sesame)["keys"] if k["kid"] == kid))
    secrets = [
        public.as_pem(private=False),
        public.as_der(private=False),
        json.dumps(public.as_dict(private=False)).encode(),
        public.as_dict(private=False)["n"].encode(),
    ]
    for secret in secrets:
        signing_input = f"{b64url_json({'alg': 'HS256', 'kid': kid, 'typ': 'JWT'})}.{b64url_json(claims)}"
        signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
        assert_invalid_token(userinfo(sesame, f"{signing_input}.{b64url(signature)}"))


@pytest.mark.sesame_env(SESAME_AUDIENCES=API)
def test_tampered_claims_with_original_signature_are_rejected(sesame):
    """Changing the payload (another user's sub, a later exp) while keeping the
    original header and signature is refused (the signature covers the claims)."""
    tokens, claims = api_access_token(sesame, "tamper@example.com")
    header_part, _, signature_part = tokens["access_token"].split(".")
    for changes in ({"sub": "email|000000000000000000000000"}, {"exp": claims["exp"] + 3600}):
        payload = b64url_json({**claims, **changes})
        assert_invalid_token(userinfo(sesame, f"{header_part}.{payload}.{signature_part}"))


@pytest.mark.sesame_env(SESAME_AUDIENCES=API)
def test_token_from_another_sesame_instance_is_rejected(sesame, sesame_factory):
    """A perfectly valid token issued by a *different* Sesame server (its own
    keys, same audience, same default issuer form) is refused: trust is rooted in this
    server's keys, not in claims."""
    other = sesame_factory(env={"SESAME_AUDIENCES": API}, name="other-sesame")
    tokens = sign_in(other, "stranger@example.com", scope=FULL_SCOPE, audience=API)
    assert userinfo(other, tokens["access_token"]).status_code == 200
    assert_invalid_token(userinfo(sesame, tokens["access_token"]))


def test_userinfo_requires_bearer_token(sesame):
    """/userinfo without credentials, or with a malformed Authorization header,
    answers 401 (RFC 6750 §3)."""
    response = requests.get(sesame.url("/userinfo"), timeout=10)
    assert response.status_code == 401, response.text
    assert response.headers.get("WWW-Authenticate", "").startswith("Bearer")
    for header in ("Bearer", "Basic dXNlcjpwYXNz", "Bearer a.b.c"):
        response = requests.get(sesame.url("/userinfo"), headers={"Authorization": header}, timeout=10)
        assert response.status_code == 401, (header, response.text)
