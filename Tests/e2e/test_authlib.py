"""authlib (PyPI), unmodified, as a web application's OAuth client: authorization code with
PKCE against the hosted page, then the id_token validated against the published keys.

The person's side is plain HTTP with a cookie jar, as a browser without scripts would do it:
the address form, the code form (each with its forgery token), the passkey offer's "Not now".
"""

from __future__ import annotations

import html
import re
from urllib.parse import urljoin

import pytest
import requests

authlib_client = pytest.importorskip("authlib.integrations.requests_client")
from authlib.common.security import generate_token  # noqa: E402
from authlib.jose import JsonWebKey, jwt  # noqa: E402

CALLBACK = "http://localhost:3000/callback"


def hidden_fields(page: str) -> dict:
    return {name: html.unescape(value)
            for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)}


def sign_in_on_the_page(sesame, authorization_url: str, email: str) -> str:
    """Walks the hosted page; returns the callback URL the browser is sent to."""
    browser = requests.Session()
    page = browser.get(authorization_url, timeout=10)
    assert page.status_code == 200 and "Email me a code" in page.text
    fields = hidden_fields(page.text)
    fields.update(username=email, send="code")
    # The same host as the authorization URL (the issuer's), so the page's cookie goes along.
    code_page = browser.post(urljoin(authorization_url, "/authorize/start"), data=fields, timeout=10)
    assert code_page.status_code == 200 and "Check your email" in code_page.text, code_page.text
    fields = hidden_fields(code_page.text)
    fields["otp"] = sesame.last_code(email)
    answer = browser.post(urljoin(authorization_url, "/authorize/verify"), data=fields, allow_redirects=False,
                          timeout=10)
    if answer.status_code == 303 and answer.headers["location"].startswith("/authorize/step"):
        answer = browser.get(urljoin(authorization_url, answer.headers["location"]), timeout=10)
    if answer.status_code == 200:  # the passkey offer: "Not now" continues from the new session
        skip = re.search(r'id="skip" href="([^"]+)"', answer.text).group(1)
        answer = browser.get(urljoin(authorization_url, html.unescape(skip)), allow_redirects=False, timeout=10)
        if answer.headers["location"].startswith("/authorize?"):
            answer = browser.get(urljoin(authorization_url, answer.headers["location"]), allow_redirects=False,
                                 timeout=10)
    assert answer.status_code == 303, answer.text
    return answer.headers["location"]


def test_authlib_code_flow_with_pkce_and_id_token_validation(sesame):
    discovery = requests.get(sesame.url("/.well-known/openid-configuration"), timeout=10).json()
    client = authlib_client.OAuth2Session(
        client_id=sesame.client_id, redirect_uri=CALLBACK, scope="openid email profile",
        code_challenge_method="S256", token_endpoint_auth_method="none")
    verifier = generate_token(48)
    nonce = generate_token(16)
    url, state = client.create_authorization_url(
        discovery["authorization_endpoint"], code_verifier=verifier, nonce=nonce)

    callback = sign_in_on_the_page(sesame, url, "ana@example.com")
    assert callback.startswith(CALLBACK + "?")

    token = client.fetch_token(
        discovery["token_endpoint"], authorization_response=callback, code_verifier=verifier, state=state)
    assert token["token_type"].lower() == "bearer" and "id_token" in token

    keys = JsonWebKey.import_key_set(requests.get(discovery["jwks_uri"], timeout=10).json())
    claims = jwt.decode(token["id_token"], keys, claims_options={
        "iss": {"essential": True, "value": discovery["issuer"]},
        "aud": {"essential": True, "value": sesame.client_id},
        "nonce": {"essential": True, "value": nonce},
    })
    claims.validate()
    assert claims["email"] == "ana@example.com"

    profile = client.get(discovery["userinfo_endpoint"], timeout=10).json()
    assert profile["sub"] == claims["sub"]


def test_authlib_refuses_a_tampered_state(sesame):
    """authlib's own CSRF check: a callback whose state is not the one it sent is refused."""
    client = authlib_client.OAuth2Session(
        client_id=sesame.client_id, redirect_uri=CALLBACK, scope="openid", code_challenge_method="S256",
        token_endpoint_auth_method="none")
    verifier = generate_token(48)
    url, state = client.create_authorization_url(sesame.url("/authorize"), code_verifier=verifier)
    callback = sign_in_on_the_page(sesame, url, "bo@example.com")
    forged = callback.replace(f"state={state}", "state=forged")
    with pytest.raises(Exception, match="(?i)state"):
        client.fetch_token(sesame.url("/oauth/token"), authorization_response=forged, code_verifier=verifier,
                           state=state)
