"""End-to-end tests driving Sesame with the real, unmodified auth0-python SDK.

The SDK is pointed at the local server with ``domain="127.0.0.1:PORT"`` and
``protocol="http"``; every ID token it receives is checked with the SDK's own
``TokenVerifier`` against the server's JWKS, exactly as an application would.
"""

from __future__ import annotations

import pytest
import requests
from auth0.authentication import GetToken, Passwordless, RevokeToken, Users
from auth0.authentication.exceptions import Auth0Error, RateLimitError, TokenValidationError
from auth0.authentication.token_verifier import AsymmetricSignatureVerifier, TokenVerifier

from flows import FULL_SCOPE, OTP_GRANT

WRONG_EMAIL = "Wrong email or verification code."
WRONG_PHONE = "Wrong phone number or verification code."
BAD_REFRESH = "Unknown or invalid refresh token."


# -- helpers -----------------------------------------------------------------


def sdk(sesame, client_id=None, client_secret=None):
    """The SDK clients, configured like an app would for this server."""
    client_id = client_id or sesame.client_id
    kw = {"protocol": "http", "client_secret": client_secret}
    return {
        "passwordless": Passwordless(sesame.domain, client_id, **kw),
        "token": GetToken(sesame.domain, client_id, **kw),
        "revoke": RevokeToken(sesame.domain, client_id, **kw),
        "users": Users(sesame.domain, protocol="http"),
    }


def verifier(sesame, audience=None) -> TokenVerifier:
    """auth0-python's ID-token verifier, fed from the server's JWKS."""
    return TokenVerifier(
        signature_verifier=AsymmetricSignatureVerifier(f"{sesame.base_url}/.well-known/jwks.json"),
        issuer=sesame.issuer,
        audience=audience or sesame.client_id,
    )


def sdk_sign_in(sesame, email, scope=FULL_SCOPE, client_id=None, client_secret=None):
    """flows.sign_in as an app does it through the SDK:
    Passwordless.email(send="code") -> outbox -> GetToken.passwordless_login;
    the ID token is checked with TokenVerifier before the tokens are returned."""
    clients = sdk(sesame, client_id, client_secret)
    clients["passwordless"].email(email, send="code")
    code = sesame.last_code(email)
    tokens = clients["token"].passwordless_login(
        username=email, otp=code, realm="email", scope=scope, audience=None
    )
    verifier(sesame, audience=client_id).verify(tokens["id_token"])
    return tokens


def assert_auth0_error(excinfo, status, error, description):
    err = excinfo.value
    assert (err.status_code, err.error_code, err.message) == (status, error, description)


def raw_token(sesame, **body):
    return requests.post(sesame.url("/oauth/token"), json=body, timeout=10)


# -- passwordless login --------------------------------------------------------


def test_email_code_login_with_sdk(sesame):
    """Passwordless.email(send="code") delivers a 6-digit code to the outbox, and
    GetToken.passwordless_login exchanges it for Auth0-shaped tokens whose ID
    token passes auth0-python's TokenVerifier (RS256, kid, iss, aud, int iat/exp)."""
    clients = sdk(sesame)
    started = clients["passwordless"].email("alice@example.com", send="code")
    assert started["email"] == "alice@example.com"
    assert started["email_verified"] is False

    message = sesame.last_message("alice@example.com")
    assert message["channel"] == "email"
    assert message["code"].isdigit() and len(message["code"]) == 6
    assert message["code"] in message["body"]

    tokens = clients["token"].passwordless_login(
        username="alice@example.com", otp=message["code"], realm="email",
        scope=FULL_SCOPE, audience=None,
    )
    assert tokens["token_type"] == "Bearer"
    assert isinstance(tokens["expires_in"], int) and tokens["expires_in"] > 0
    assert tokens["access_token"] and tokens["refresh_token"] and tokens["id_token"]
    assert set(tokens["scope"].split()) == set(FULL_SCOPE.split())

    claims = verifier(sesame).verify(tokens["id_token"])
    assert claims["iss"] == sesame.issuer and sesame.issuer.endswith("/")
    assert claims["aud"] == sesame.client_id
    assert claims["sub"].startswith("email|")
    assert claims["email"] == "alice@example.com"
    assert claims["email_verified"] is True


def test_sms_code_login_with_sdk(sesame):
    """Passwordless.sms (which sends no `send` field) delivers a code by SMS, and
    passwordless_login with realm "sms" returns a verifiable ID token for an
    `sms|…` user carrying the phone number."""
    clients = sdk(sesame)
    phone = "+15551230001"
    started = clients["passwordless"].sms(phone)
    assert started["phone_number"] == phone

    message = sesame.last_message(phone)
    assert message["channel"] == "sms"
    assert message["code"] in message["body"]

    tokens = clients["token"].passwordless_login(
        username=phone, otp=message["code"], realm="sms",
        scope="openid profile phone offline_access", audience=None,
    )
    claims = verifier(sesame).verify(tokens["id_token"])
    assert claims["sub"].startswith("sms|")
    assert claims["phone_number"] == phone
    assert tokens["refresh_token"]


def test_wrong_email_code_raises_invalid_grant(sesame):
    """A wrong email code surfaces in the SDK as
    Auth0Error(403, "invalid_grant", "Wrong email or verification code."), the exact
    text Auth0 SDKs match to recognise bad credentials."""
    clients = sdk(sesame)
    clients["passwordless"].email("wrong@example.com", send="code")
    code = sesame.last_code("wrong@example.com")
    bad = "000000" if code != "000000" else "111111"
    with pytest.raises(Auth0Error) as excinfo:
        clients["token"].passwordless_login(
            username="wrong@example.com", otp=bad, realm="email", scope="openid", audience=None
        )
    assert_auth0_error(excinfo, 403, "invalid_grant", WRONG_EMAIL)


def test_wrong_sms_code_raises_invalid_grant(sesame):
    """A wrong SMS code yields 403 invalid_grant "Wrong phone number or verification code."."""
    clients = sdk(sesame)
    phone = "+15551230002"
    clients["passwordless"].sms(phone)
    code = sesame.last_code(phone)
    bad = "000000" if code != "000000" else "111111"
    with pytest.raises(Auth0Error) as excinfo:
        clients["token"].passwordless_login(
            username=phone, otp=bad, realm="sms", scope="openid", audience=None
        )
    assert_auth0_error(excinfo, 403, "invalid_grant", WRONG_PHONE)


def test_code_for_unknown_recipient_is_rejected(sesame):
    """A code is bound to the address it was sent to: Bob's code cannot log in
    as Carol (stops using one's own code to take over another account)."""
    clients = sdk(sesame)
    clients["passwordless"].email("bob@example.com", send="code")
    clients["passwordless"].email("carol@example.com", send="code")
    bob_code = sesame.last_code("bob@example.com")
    carol_code = sesame.last_code("carol@example.com")
    if bob_code == carol_code:  # 1-in-a-million coincidence: nothing to test
        pytest.skip("both recipients drew the same code")
    with pytest.raises(Auth0Error) as excinfo:
        clients["token"].passwordless_login(
            username="carol@example.com", otp=bob_code, realm="email", scope="openid", audience=None
        )
    assert_auth0_error(excinfo, 403, "invalid_grant", WRONG_EMAIL)


def test_code_is_single_use(sesame):
    """A code that was exchanged once cannot be exchanged again (stops replay of
    an intercepted or logged code)."""
    clients = sdk(sesame)
    clients["passwordless"].email("once@example.com", send="code")
    code = sesame.last_code("once@example.com")
    tokens = clients["token"].passwordless_login(
        username="once@example.com", otp=code, realm="email", scope="openid", audience=None
    )
    verifier(sesame).verify(tokens["id_token"])
    with pytest.raises(Auth0Error) as excinfo:
        clients["token"].passwordless_login(
            username="once@example.com", otp=code, realm="email", scope="openid", audience=None
        )
    assert_auth0_error(excinfo, 403, "invalid_grant", WRONG_EMAIL)


def test_code_dies_after_three_wrong_attempts(sesame):
    """After 3 wrong guesses the code is dead and even the right code fails
    (stops online brute force of the 6-digit code space)."""
    clients = sdk(sesame)
    clients["passwordless"].email("guess@example.com", send="code")
    code = sesame.last_code("guess@example.com")
    wrong = [c for c in ("000000", "111111", "222222", "333333") if c != code][:3]
    for guess in wrong:
        with pytest.raises(Auth0Error) as excinfo:
            clients["token"].passwordless_login(
                username="guess@example.com", otp=guess, realm="email", scope="openid", audience=None
            )
        assert_auth0_error(excinfo, 403, "invalid_grant", WRONG_EMAIL)
    with pytest.raises(Auth0Error) as excinfo:
        clients["token"].passwordless_login(
            username="guess@example.com", otp=code, realm="email", scope="openid", audience=None
        )
    assert_auth0_error(excinfo, 403, "invalid_grant", WRONG_EMAIL)


def test_new_code_invalidates_previous_one(sesame):
    """Only the most recently issued code is valid: requesting a second code
    kills the first (limits the number of live codes an attacker can guess at)."""
    clients = sdk(sesame)
    clients["passwordless"].email("twice@example.com", send="code")
    first = sesame.last_code("twice@example.com")
    clients["passwordless"].email("twice@example.com", send="code")
    second = sesame.last_code("twice@example.com")
    if first == second:
        pytest.skip("both codes happened to be equal")
    with pytest.raises(Auth0Error) as excinfo:
        clients["token"].passwordless_login(
            username="twice@example.com", otp=first, realm="email", scope="openid", audience=None
        )
    assert_auth0_error(excinfo, 403, "invalid_grant", WRONG_EMAIL)
    tokens = clients["token"].passwordless_login(
        username="twice@example.com", otp=second, realm="email", scope="openid", audience=None
    )
    verifier(sesame).verify(tokens["id_token"])


@pytest.mark.sesame_env(SESAME_RATE_LIMIT_START_PER_RECIPIENT="2")
def test_start_rate_limit_raises_rate_limit_error(sesame):
    """Past the per-recipient limit, /passwordless/start answers 429 with
    X-RateLimit-* headers, which auth0-python turns into RateLimitError with an
    integer reset_at; no message is delivered (stops email/SMS bombing of one
    victim), while other recipients are unaffected."""
    clients = sdk(sesame)
    clients["passwordless"].email("flood@example.com", send="code")
    clients["passwordless"].email("flood@example.com", send="code")
    sent = [m for m in sesame.outbox() if m["recipient"] == "flood@example.com"]
    assert len(sent) == 2

    with pytest.raises(RateLimitError) as excinfo:
        clients["passwordless"].email("flood@example.com", send="code")
    err = excinfo.value
    assert err.status_code == 429
    assert isinstance(err.reset_at, int) and err.reset_at > 0
    headers = {k.lower(): v for k, v in err.headers.items()}
    assert int(headers["x-ratelimit-reset"]) == err.reset_at
    assert headers["x-ratelimit-limit"] == "2"
    assert headers["x-ratelimit-remaining"] == "0"

    sent = [m for m in sesame.outbox() if m["recipient"] == "flood@example.com"]
    assert len(sent) == 2, "a rate-limited request must not deliver a message"

    clients["passwordless"].email("someone-else@example.com", send="code")
    assert sesame.last_code("someone-else@example.com")


# -- tokens: refresh, userinfo, revoke ----------------------------------------


def test_refresh_token_with_sdk_default_empty_scope(sesame):
    """GetToken.refresh_token sends scope="" by default; the server treats it as
    "not provided", keeps the original scope, rotates the refresh token and
    returns a new verifiable ID token for the same user."""
    first = sdk_sign_in(sesame, "refresh@example.com")
    first_claims = verifier(sesame).verify(first["id_token"])

    renewed = sdk(sesame)["token"].refresh_token(first["refresh_token"])
    assert renewed["token_type"] == "Bearer"
    assert renewed["access_token"] and renewed["access_token"] != first["access_token"]
    assert set(renewed["scope"].split()) == set(FULL_SCOPE.split())
    assert renewed["refresh_token"] and renewed["refresh_token"] != first["refresh_token"]

    claims = verifier(sesame).verify(renewed["id_token"])
    assert claims["sub"] == first_claims["sub"]
    assert claims["email"] == "refresh@example.com"

    info = sdk(sesame)["users"].userinfo(renewed["access_token"])
    assert info["sub"] == first_claims["sub"]


def test_refresh_token_reuse_revokes_family(sesame):
    """Rotation with reuse detection: within the reuse interval (10 s) one retry of
    a rotated token gets the same replacement (a response lost on a mobile network);
    any further presentation fails with 403 invalid_grant and revokes the whole
    family, so the newest token dies too (stops a thief who copied an old one)."""
    tokens = sdk_sign_in(sesame, "reuse@example.com")
    get_token = sdk(sesame)["token"]
    old = tokens["refresh_token"]
    rotated = get_token.refresh_token(old)
    verifier(sesame).verify(rotated["id_token"])
    new = rotated["refresh_token"]
    assert get_token.refresh_token(old)["refresh_token"] == new

    with pytest.raises(Auth0Error) as excinfo:
        get_token.refresh_token(old)
    assert_auth0_error(excinfo, 403, "invalid_grant", BAD_REFRESH)

    with pytest.raises(Auth0Error) as excinfo:
        get_token.refresh_token(new)
    assert_auth0_error(excinfo, 403, "invalid_grant", BAD_REFRESH)


def test_userinfo_with_sdk(sesame):
    """Users.userinfo(access_token) returns the profile of the token's user with
    the same `sub` as the ID token; a garbage bearer token gets 401."""
    tokens = sdk_sign_in(sesame, "profile@example.com")
    claims = verifier(sesame).verify(tokens["id_token"])
    users = sdk(sesame)["users"]

    info = users.userinfo(tokens["access_token"])
    assert info["sub"] == claims["sub"]
    assert info["email"] == "profile@example.com"
    assert info["email_verified"] is True
    assert isinstance(info.get("updated_at", ""), str)

    with pytest.raises(Auth0Error) as excinfo:
        users.userinfo("not-a-token")
    assert excinfo.value.status_code == 401
    assert excinfo.value.error_code == "invalid_token"


def test_revoke_then_refresh_fails(sesame):
    """RevokeToken.revoke_refresh_token succeeds (empty 200), after which the
    refresh token is dead: Auth0Error(403, invalid_grant, "Unknown or invalid
    refresh token.") — logging out really ends the session."""
    tokens = sdk_sign_in(sesame, "revoke@example.com")
    clients = sdk(sesame)
    clients["revoke"].revoke_refresh_token(tokens["refresh_token"])
    with pytest.raises(Auth0Error) as excinfo:
        clients["token"].refresh_token(tokens["refresh_token"])
    assert_auth0_error(excinfo, 403, "invalid_grant", BAD_REFRESH)


def test_revoke_unknown_token_is_accepted(sesame):
    """Revoking an unknown token is answered 200 like Auth0 does (RFC 7009 §2.2),
    so clients cannot probe which refresh tokens exist."""
    sdk(sesame)["revoke"].revoke_refresh_token("definitely-not-a-refresh-token")


def test_blocked_user_loses_refresh_and_gets_no_code(sesame):
    """`sesame admin users block` revokes the user's refresh tokens and access
    tokens, and /passwordless/start sends them no code while still answering 200
    (no account enumeration)."""
    tokens = sdk_sign_in(sesame, "blocked@example.com")
    user_id = verifier(sesame).verify(tokens["id_token"])["sub"]
    sesame.cli("admin", "users", "block", user_id)
    clients = sdk(sesame)

    with pytest.raises(Auth0Error) as excinfo:
        clients["token"].refresh_token(tokens["refresh_token"])
    assert_auth0_error(excinfo, 403, "invalid_grant", BAD_REFRESH)
    with pytest.raises(Auth0Error) as excinfo:
        clients["users"].userinfo(tokens["access_token"])
    assert excinfo.value.status_code == 401

    before = len([m for m in sesame.outbox() if m["recipient"] == "blocked@example.com"])
    clients["passwordless"].email("blocked@example.com", send="code")
    after = len([m for m in sesame.outbox() if m["recipient"] == "blocked@example.com"])
    assert after == before


# -- nonce and ID-token verification ------------------------------------------


def test_nonce_is_echoed_and_checked_by_token_verifier(sesame):
    """A nonce sent on a raw /oauth/token request comes back in the ID token;
    TokenVerifier accepts it with that nonce and rejects it with another one
    (the check that stops ID-token replay/injection)."""
    sdk(sesame)["passwordless"].email("nonce@example.com", send="code")
    code = sesame.last_code("nonce@example.com")
    response = raw_token(
        sesame, grant_type=OTP_GRANT, client_id=sesame.client_id, realm="email",
        username="nonce@example.com", otp=code, scope="openid", nonce="n-0S6_WzA2Mj",
    )
    assert response.status_code == 200, response.text
    id_token = response.json()["id_token"]
    claims = verifier(sesame).verify(id_token, nonce="n-0S6_WzA2Mj")
    assert claims["nonce"] == "n-0S6_WzA2Mj"
    with pytest.raises(TokenValidationError):
        verifier(sesame).verify(id_token, nonce="some-other-nonce")


def test_id_token_is_rejected_for_another_audience(sesame):
    """An ID token issued to the default app does not verify for another client
    id (stops replaying one app's ID token at another app)."""
    tokens = sdk_sign_in(sesame, "aud@example.com", scope="openid")
    other = sesame.cli_json("admin", "apps", "create", "--name", "Other", "--type", "native")
    with pytest.raises(TokenValidationError):
        verifier(sesame, audience=other["client_id"]).verify(tokens["id_token"])


def test_legacy_oauth_ro_passwordless(sesame):
    """Legacy POST /oauth/ro (Lock v1) with grant_type=password and the code as
    password returns tokens whose ID token passes TokenVerifier; a wrong code is
    refused with 401 invalid_user_password "Wrong email or verification code."
    (the /oauth/ro error shape Lock v1 expects)."""
    sdk(sesame)["passwordless"].email("legacy@example.com", send="code")
    code = sesame.last_code("legacy@example.com")
    bad = "000000" if code != "000000" else "111111"
    body = {"client_id": sesame.client_id, "connection": "email", "grant_type": "password",
            "username": "legacy@example.com", "scope": "openid offline_access"}

    wrong = requests.post(sesame.url("/oauth/ro"), json={**body, "password": bad}, timeout=10)
    assert wrong.status_code == 401, wrong.text
    assert wrong.json() == {"error": "invalid_user_password", "error_description": WRONG_EMAIL}

    response = requests.post(sesame.url("/oauth/ro"), json={**body, "password": code}, timeout=10)
    assert response.status_code == 200, response.text
    tokens = response.json()
    assert tokens["token_type"] == "Bearer"
    assert tokens["refresh_token"]
    claims = verifier(sesame).verify(tokens["id_token"])
    assert claims["sub"].startswith("email|")


# -- confidential (regular) application ---------------------------------------


@pytest.fixture
def regular_app(sesame):
    app = sesame.cli_json(
        "admin", "apps", "create", "--name", "Regular Web App", "--type", "regular",
        "--callback", "http://127.0.0.1:9/callback",
    )
    assert app["type"] == "regular"
    assert app["client_secret"]
    return app


def test_confidential_app_with_secret(sesame, regular_app):
    """A regular (confidential) app created with the CLI works end to end through
    the SDK when the SDK is given its client_secret: start, login, ID token
    verification (aud = that app), refresh and revoke."""
    cid, secret = regular_app["client_id"], regular_app["client_secret"]
    tokens = sdk_sign_in(sesame, "web@example.com", client_id=cid, client_secret=secret)
    claims = verifier(sesame, audience=cid).verify(tokens["id_token"])
    assert claims["aud"] == cid

    clients = sdk(sesame, cid, secret)
    renewed = clients["token"].refresh_token(tokens["refresh_token"])
    verifier(sesame, audience=cid).verify(renewed["id_token"])
    clients["revoke"].revoke_refresh_token(renewed["refresh_token"])
    with pytest.raises(Auth0Error) as excinfo:
        clients["token"].refresh_token(renewed["refresh_token"])
    assert_auth0_error(excinfo, 403, "invalid_grant", BAD_REFRESH)


def test_confidential_app_without_secret_is_refused(sesame, regular_app):
    """Every call of a confidential app without its client_secret fails with 401
    invalid_client (stops anyone who only knows the public client_id from
    acting as the confidential app), and no code is sent."""
    cid, secret = regular_app["client_id"], regular_app["client_secret"]
    public = sdk(sesame, cid)  # no secret

    with pytest.raises(Auth0Error) as excinfo:
        public["passwordless"].email("nosecret@example.com", send="code")
    assert (excinfo.value.status_code, excinfo.value.error_code) == (401, "invalid_client")
    assert not [m for m in sesame.outbox() if m["recipient"] == "nosecret@example.com"]

    # Get a valid code and refresh token through the authenticated client...
    sdk(sesame, cid, secret)["passwordless"].email("nosecret@example.com", send="code")
    code = sesame.last_code("nosecret@example.com")
    # ...then try to use them without the secret.
    with pytest.raises(Auth0Error) as excinfo:
        public["token"].passwordless_login(
            username="nosecret@example.com", otp=code, realm="email", scope=FULL_SCOPE, audience=None
        )
    assert (excinfo.value.status_code, excinfo.value.error_code) == (401, "invalid_client")

    tokens = sdk(sesame, cid, secret)["token"].passwordless_login(
        username="nosecret@example.com", otp=code, realm="email", scope=FULL_SCOPE, audience=None
    )
    with pytest.raises(Auth0Error) as excinfo:
        public["token"].refresh_token(tokens["refresh_token"])
    assert (excinfo.value.status_code, excinfo.value.error_code) == (401, "invalid_client")
    with pytest.raises(Auth0Error) as excinfo:
        public["revoke"].revoke_refresh_token(tokens["refresh_token"])
    assert (excinfo.value.status_code, excinfo.value.error_code) == (401, "invalid_client")

    wrong = sdk(sesame, cid, "not-the-secret")
    with pytest.raises(Auth0Error) as excinfo:
        wrong["token"].refresh_token(tokens["refresh_token"])
    assert (excinfo.value.status_code, excinfo.value.error_code) == (401, "invalid_client")

    # The refresh token survived the unauthenticated attempts.
    renewed = sdk(sesame, cid, secret)["token"].refresh_token(tokens["refresh_token"])
    verifier(sesame, audience=cid).verify(renewed["id_token"])
