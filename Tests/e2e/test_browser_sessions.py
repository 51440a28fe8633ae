"""Browser sessions in a real Chromium: a code login on the hosted page, then silent
authentication exactly as Auth0's SPA SDK does it (a hidden iframe, prompt=none,
response_mode=web_message), then logout.

The app page is served from 127.0.0.1 on another port: same site as Sesame (ports do not
make sites), as a custom login domain makes them in production. Browsers do not send
SameSite=Lax cookies to a cross-site iframe, so silent authentication needs that.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from conftest import serve_pages

playwright_api = pytest.importorskip("playwright.sync_api")

ARTIFACTS = Path(os.environ.get("SESAME_ARTIFACTS", "/tmp/sesame-artifacts"))


@pytest.fixture
def spa_origin():
    with serve_pages("127.0.0.1") as origin:
        yield origin


def silent(page, sesame, spa_origin, client_id) -> dict:
    page.goto(f"{spa_origin}/spa.html?" + urlencode({"sesame": sesame.base_url, "client": client_id}))
    page.wait_for_function("document.getElementById('out').textContent !== 'pending'", timeout=15000)
    text = page.inner_text("#out")
    assert text != "timeout", "no message from the iframe (the SDK would wait out its timeout)"
    return json.loads(text)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def sign_in(page, sesame, authorize_url: str) -> None:
    """A code login on the hosted page, declining the passkey offer; ends at the callback."""
    page.goto(authorize_url)
    shot(page, "authorize-identifier")
    page.fill("input[name=username]", "ana@example.com")
    page.click("button[type=submit]")
    page.wait_for_selector("input[name=otp]")
    shot(page, "authorize-code")
    page.fill("input[name=otp]", sesame.last_code("ana@example.com"))
    page.click("button[type=submit]")
    page.wait_for_selector("#skip")  # the passkey offer after a code login
    with page.expect_navigation():
        page.click("#skip")


def test_silent_authentication_and_logout(sesame, spa_origin, browser):
    created = sesame.cli_json(
        "admin", "apps", "create", "--name", "Shop", "--type", "spa", "--callback", spa_origin,
        "--allowed-origin", spa_origin, "--logout-url", spa_origin + "/spa.html")
    client_id = created["client_id"]
    page = browser.new_context().new_page()

    before = silent(page, sesame, spa_origin, client_id)
    assert before["error"] == "login_required" and before["state_matches"]

    query = urlencode({
        "client_id": client_id, "redirect_uri": spa_origin, "response_type": "code", "scope": "openid email",
        "state": "s", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256",
    })
    sign_in(page, sesame, f"{sesame.base_url}/authorize?{query}")
    assert page.url.startswith(spa_origin) and "code=" in page.url

    after = silent(page, sesame, spa_origin, client_id)
    assert after.get("code") and after["state_matches"], after

    page.goto(f"{sesame.base_url}/v2/logout?" + urlencode({"client_id": client_id, "returnTo": spa_origin + "/spa.html"}))
    assert page.url.startswith(spa_origin + "/spa.html")
    out = silent(page, sesame, spa_origin, client_id)
    assert out["error"] == "login_required", out

    page.goto(f"{sesame.base_url}/v2/logout?" + urlencode({"client_id": client_id, "returnTo": "https://evil.example"}))
    assert page.url.startswith(sesame.base_url), "never redirected to an unlisted URL"
    shot(page, "logout-refused")


def test_openid_connect_rp_initiated_logout(sesame, spa_origin, browser):
    """OpenID Connect RP-Initiated Logout: the id_token names the application, the browser goes
    back to an allowed post-logout URL with the state, and the session is over."""
    created = sesame.cli_json(
        "admin", "apps", "create", "--name", "Shop", "--type", "spa", "--callback", spa_origin,
        "--allowed-origin", spa_origin, "--logout-url", spa_origin + "/spa.html")
    client_id = created["client_id"]
    page = browser.new_context().new_page()
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"  # RFC 7636's example; its S256 below
    query = urlencode({
        "client_id": client_id, "redirect_uri": spa_origin, "response_type": "code", "scope": "openid email",
        "state": "s", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256",
    })
    sign_in(page, sesame, f"{sesame.base_url}/authorize?{query}")
    code = parse_qs(urlsplit(page.url).query)["code"][0]
    tokens = requests.post(sesame.url("/oauth/token"), json={
        "grant_type": "authorization_code", "client_id": client_id, "code": code, "redirect_uri": spa_origin,
        "code_verifier": verifier}, timeout=10).json()
    assert silent(page, sesame, spa_origin, client_id).get("code"), "signed in"

    page.goto(f"{sesame.base_url}/oidc/logout?" + urlencode({
        "id_token_hint": tokens["id_token"], "post_logout_redirect_uri": spa_origin + "/spa.html", "state": "bye"}))
    assert page.url.startswith(spa_origin + "/spa.html") and "state=bye" in page.url
    assert silent(page, sesame, spa_origin, client_id)["error"] == "login_required"
