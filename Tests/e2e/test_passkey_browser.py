"""A real Chromium signs up and signs in with a passkey against `sesame serve`.

Debian's chromium, driven by Playwright, with Chrome's virtual authenticator (CDP
`WebAuthn.addVirtualAuthenticator`). The app page is served from another origin, as a real
app's would be, and calls Sesame's native Passkey API across origins (CORS). The id_tokens
are verified against the JWKS with joserfc.
"""

from __future__ import annotations

import base64
import hashlib
import os
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from conftest import serve_pages
import requests
from joserfc import jwt
from joserfc.jwk import KeySet

playwright_api = pytest.importorskip("playwright.sync_api")



@pytest.fixture
def app_page_origin():
    with serve_pages("localhost") as origin:
        yield origin


def open_app(browser, origin: str, authenticator: bool = True):
    """A page on the app's origin with a fresh virtual platform authenticator."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{origin}/passkey.html")
    if authenticator:
        cdp = context.new_cdp_session(page)
        cdp.send("WebAuthn.enable")
        cdp.send("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
            "hasUserVerification": True, "isUserVerified": True, "automaticPresenceSimulation": True,
        }})
    return page


def verify(sesame, token: str) -> dict:
    keys = KeySet.import_key_set(requests.get(sesame.url("/.well-known/jwks.json"), timeout=10).json())
    claims = jwt.decode(token, keys, algorithms=["RS256"]).claims
    assert claims["iss"] == sesame.issuer
    assert claims["aud"] == sesame.client_id
    return claims


def allow_origin(sesame, origin: str) -> None:
    """The operator's step: list the app's web origin (picked up without a restart)."""
    sesame.cli("admin", "apps", "update", sesame.client_id, "--allowed-origin", origin)


def test_chromium_signs_up_and_signs_in_with_a_passkey(sesame, browser, app_page_origin):
    allow_origin(sesame, app_page_origin)
    page = open_app(browser, app_page_origin)
    server = sesame.base_url.replace("127.0.0.1", "localhost")

    signup = page.evaluate("([s, c]) => signup(s, c, 'ana@example.com')", [server, sesame.client_id])
    signup_claims = verify(sesame, signup["id_token"])
    assert signup_claims["email"] == "ana@example.com"
    assert signup_claims["email_verified"] is False
    # An unproven address gets no refresh token (account pre-hijacking).
    assert "refresh_token" not in signup

    login = page.evaluate("([s, c]) => login(s, c)", [server, sesame.client_id])
    login_claims = verify(sesame, login["id_token"])
    assert login_claims["sub"] == signup_claims["sub"]

    profile = requests.get(sesame.url("/userinfo"), headers={"Authorization": f"Bearer {login['access_token']}"},
                           timeout=10).json()
    assert profile["sub"] == signup_claims["sub"]
    listed = requests.get(sesame.url("/me/passkeys"), headers={"Authorization": f"Bearer {login['access_token']}"},
                          timeout=10).json()
    assert len(listed) == 1 and listed[0]["last_used_at"]


def test_a_deleted_passkey_no_longer_signs_in(sesame, browser, app_page_origin):
    allow_origin(sesame, app_page_origin)
    page = open_app(browser, app_page_origin)
    server = sesame.base_url.replace("127.0.0.1", "localhost")
    tokens = page.evaluate("([s, c]) => signup(s, c, 'bob@example.com')", [server, sesame.client_id])
    auth = {"Authorization": f"Bearer {tokens['access_token']}"}
    [passkey] = requests.get(sesame.url("/me/passkeys"), headers=auth, timeout=10).json()
    assert requests.delete(sesame.url(f"/me/passkeys/{passkey['id']}"), headers=auth, timeout=10).status_code == 204

    with pytest.raises(playwright_api.Error, match="invalid_grant"):
        page.evaluate("([s, c]) => login(s, c)", [server, sesame.client_id])


def test_an_origin_the_operator_did_not_allow_is_blocked_by_cors(sesame, browser, app_page_origin):
    page = open_app(browser, app_page_origin)
    server = sesame.base_url.replace("127.0.0.1", "localhost")
    with pytest.raises(playwright_api.Error, match="Failed to fetch"):
        page.evaluate("([s, c]) => signup(s, c, 'eve@example.com')", [server, sesame.client_id])


def test_the_hosted_login_page_signs_in_with_a_passkey(sesame, browser, app_page_origin):
    """The hosted /authorize page (authorization code with PKCE) offers the passkey beside the
    address field; Chromium answers with its authenticator and the application's callback gets
    a code that redeems for the passkey owner's tokens."""
    allow_origin(sesame, app_page_origin)
    page = open_app(browser, app_page_origin)
    server = sesame.base_url.replace("127.0.0.1", "localhost")
    signup = page.evaluate("([s, c]) => signup(s, c, 'kim@example.com')", [server, sesame.client_id])
    owner = verify(sesame, signup["id_token"])["sub"]

    verifier = base64.urlsafe_b64encode(os.urandom(40)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    callback = "http://localhost:3000/callback"
    arrived: list = []
    page.route(f"{callback}**", lambda route: (arrived.append(route.request.url), route.fulfill(body="signed in")))
    page.goto(f"{server}/authorize?" + urlencode({
        "client_id": sesame.client_id, "redirect_uri": callback, "response_type": "code", "scope": "openid email",
        "state": "st-1", "code_challenge": challenge, "code_challenge_method": "S256"}))
    try:  # Chromium may already have answered through autofill (conditional mediation)
        page.locator("#passkey-button").click(timeout=5000)
    except playwright_api.Error:
        pass
    for _ in range(100):
        if arrived:
            break
        page.wait_for_timeout(100)
    assert arrived, page.content()
    query = parse_qs(urlsplit(arrived[0]).query)
    assert query["state"] == ["st-1"]
    tokens = requests.post(sesame.url("/oauth/token"), json={
        "grant_type": "authorization_code", "client_id": sesame.client_id, "code": query["code"][0],
        "redirect_uri": callback, "code_verifier": verifier}, timeout=10).json()
    assert verify(sesame, tokens["id_token"])["sub"] == owner
