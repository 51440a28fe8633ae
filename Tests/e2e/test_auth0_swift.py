"""Auth0.swift 3.x's exact requests, pinned: for each call the iOS SDK makes, the method,
path, headers and body it sends (each cites the Auth0.swift file and line that builds it, at
auth0/Auth0.swift 850e1a2, version 3.1.0), and a check that Sesame's answer decodes the way
Auth0.swift decodes it.

Every request goes through ``auth0_swift``: JSON bodies (Request.swift:71-72), the
``Content-Type: application/json`` header on every request, GET included
(Request.swift:78), and the ``Auth0-Client`` telemetry header (Auth0ClientInfo.swift:39,
base64url JSON of name, version and env, Auth0ClientInfo.swift:53-73).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from urllib.parse import parse_qs, urlencode, urljoin, urlparse

import html
import re
import requests

from flows import DPoPKey, htu
from soft_authenticator import SoftAuthenticator, b64url_decode

OTP_GRANT = "http://auth0.com/oauth/grant-type/passwordless/otp"
WEBAUTHN_GRANT = "urn:okta:params:oauth:grant-type:webauthn"
#: Auth0.swift's default scope (Auth0.swift:42).
DEFAULT_SCOPE = "openid profile email offline_access"
#: Auth0ClientInfo.swift:53-73: {"name": "Auth0.swift", "version": <Version.swift>, "env": {"swift", <os>}}.
AUTH0_CLIENT = base64.urlsafe_b64encode(json.dumps(
    {"name": "Auth0.swift", "version": "3.1.0", "env": {"swift": "6.x", "iOS": "18.0"}}).encode()).rstrip(b"=").decode()
BUNDLE = "com.example.app"


def auth0_swift(server, method: str, path: str, body: dict | None = None, headers: dict | None = None,
                dpop: DPoPKey | None = None, nonce: list | None = None) -> requests.Response:
    """One request as Auth0.swift's ``Request`` sends it (Request.swift:60-81), with its DPoP
    handling when ``dpop`` is given (Request.swift:98-131): a proof on the request, the
    ``DPoP-Nonce`` of every answer kept (DPoP.swift:162) and one retry on ``use_dpop_nonce``
    (DPoP.swift:167-172). ``nonce`` is the one-element store of the last nonce."""
    url = server.url(path)
    for attempt in range(2):
        sent = {"Content-Type": "application/json", "Auth0-Client": AUTH0_CLIENT, **(headers or {})}
        if dpop is not None:
            # DPoPProofGenerator.swift: ath from the Authorization header's token (DPoP.swift:186-193).
            token = sent.get("Authorization", "").split(" ")[-1] or None
            sent["DPoP"] = dpop.proof(method, htu(server, path), nonce=(nonce or [None])[0], access_token=token)
        response = requests.request(method, url, data=json.dumps(body) if body is not None else None,
                                    headers=sent, timeout=10)
        if nonce is not None and response.headers.get("DPoP-Nonce"):
            nonce[:] = [response.headers["DPoP-Nonce"]]
        is_nonce_error = response.status_code in (400, 401) and _json(response).get("error") == "use_dpop_nonce"
        if dpop is None or attempt or not is_nonce_error:
            return response
    return response


def _json(response: requests.Response) -> dict:
    try:
        return response.json()
    except ValueError:
        return {}


# -- what Auth0.swift decodes ------------------------------------------------------------

def decodes_as_credentials(response: requests.Response, refresh: bool = True) -> dict:
    """Credentials.swift:153-178: every field optional but typed; ``expires_in`` a number
    (or numeric string). What apps rely on is present."""
    assert response.status_code == 200, response.text
    body = response.json()
    for field in ("access_token", "token_type", "id_token", "refresh_token", "scope"):
        assert field not in body or isinstance(body[field], str), field
    assert isinstance(body["expires_in"], (int, float)) and body["expires_in"] > 0
    assert body["access_token"] and body["id_token"] and body["token_type"] in ("Bearer", "DPoP")
    assert ("refresh_token" in body) == refresh
    # The scope says what was granted: offline_access only with a refresh token.
    assert ("offline_access" in body["scope"].split()) == refresh
    return body


def decodes_as_user_profile(response: requests.Response) -> dict:
    """UserProfile.swift:161-209: ``sub`` a string (required); the rest typed when present."""
    assert response.status_code == 200, response.text
    body = response.json()
    assert isinstance(body["sub"], str)
    for field in ("name", "nickname", "picture", "email", "phone_number", "updated_at"):
        assert field not in body or isinstance(body[field], str), field
    for field in ("email_verified", "phone_number_verified"):
        assert field not in body or isinstance(body[field], bool), field
    return body


def decodes_as_authentication_error(response: requests.Response) -> tuple:
    """AuthenticationError.swift:31-32 (``code`` reads ``error``, else ``code``) and 147-150
    (``message`` reads ``description``, else ``error_description``)."""
    body = response.json()
    code = body.get("error") or body.get("code")
    description = body.get("description") or body.get("error_description")
    assert isinstance(code, str) and isinstance(description, str), body
    return code, description


def is_invalid_credentials(code: str, description: str) -> bool:
    """AuthenticationError.swift:88-93."""
    return code == "invalid_user_password" or code == "invalid_grant" and description in (
        "Wrong email or password.", "Wrong email or verification code.",
        "Wrong phone number or verification code.")


# -- passwordless ----------------------------------------------------------------------------

def start_passwordless(server, field: str, value: str, connection: str) -> requests.Response:
    # Auth0Authentication.swift:318-334 (email) and 336-351 (phone_number): the identifier,
    # connection, send (PasswordlessType.swift:5, "code") and client_id; 3.x sends no authParams.
    return auth0_swift(server, "POST", "/passwordless/start", {
        field: value, "connection": connection, "send": "code", "client_id": server.client_id})


def login_with_code(server, username: str, code: str, realm: str, **dpop) -> requests.Response:
    # Auth0Authentication.swift:522-543 via login(email:code:) (:24-26, realm "email") and
    # login(phoneNumber:code:) (:28-30, realm "sms"); scope through includeRequiredScope (Shared.swift:16).
    return auth0_swift(server, "POST", "/oauth/token", {
        "username": username, "otp": code, "realm": realm, "grant_type": OTP_GRANT,
        "client_id": server.client_id, "scope": DEFAULT_SCOPE}, **dpop)


def test_passwordless_email_code_login_userinfo_renew_and_revoke(sesame):
    started = start_passwordless(sesame, "email", "ana@example.com", "email")
    # authenticationNoBody (Auth0Authentication.swift:330): any 2xx body is accepted.
    assert started.status_code == 200, started.text
    wrong = login_with_code(sesame, "ana@example.com", "000000", "email")
    assert is_invalid_credentials(*decodes_as_authentication_error(wrong))
    credentials = decodes_as_credentials(
        login_with_code(sesame, "ana@example.com", sesame.last_code("ana@example.com"), "email"))
    assert credentials["token_type"] == "Bearer"

    # Auth0Authentication.swift:353-366: GET /userinfo, Authorization "<token_type> <token>"
    # (SenderConstraining.swift:34-36), no body.
    profile = decodes_as_user_profile(auth0_swift(sesame, "GET", "/userinfo", headers={
        "Authorization": f"{credentials['token_type']} {credentials['access_token']}"}))
    assert profile["email"] == "ana@example.com"

    # Auth0Authentication.swift:387-414 renew(withRefreshToken:): no scope or audience unless given.
    renewed = decodes_as_credentials(auth0_swift(sesame, "POST", "/oauth/token", {
        "refresh_token": credentials["refresh_token"], "grant_type": "refresh_token", "client_id": sesame.client_id}))
    # Auth0Authentication.swift:416-429 revoke(refreshToken:): token and client_id.
    revoked = auth0_swift(sesame, "POST", "/oauth/revoke", {"token": renewed["refresh_token"],
                                                           "client_id": sesame.client_id})
    assert revoked.status_code == 200
    again = auth0_swift(sesame, "POST", "/oauth/token", {
        "refresh_token": renewed["refresh_token"], "grant_type": "refresh_token", "client_id": sesame.client_id})
    code, description = decodes_as_authentication_error(again)
    # isInvalidRefreshToken (AuthenticationError.swift:102-105).
    assert code == "invalid_grant" and description == "Unknown or invalid refresh token."


def test_passwordless_sms_code_login(sesame):
    assert start_passwordless(sesame, "phone_number", "+14155550123", "sms").status_code == 200
    wrong = login_with_code(sesame, "+14155550123", "000000", "sms")
    assert is_invalid_credentials(*decodes_as_authentication_error(wrong))
    decodes_as_credentials(login_with_code(sesame, "+14155550123", sesame.last_code("+14155550123"), "sms"))


# -- passkeys --------------------------------------------------------------------------------

def test_passkey_signup_and_login(sesame):
    authenticator = SoftAuthenticator(origin=sesame.issuer.rstrip("/"))
    # Auth0Authentication.swift:260-299 passkeySignupChallenge: client_id and user_profile.
    signup = auth0_swift(sesame, "POST", "/passkey/register", {
        "client_id": sesame.client_id, "user_profile": {"email": "pia@example.com", "name": "Pia"}})
    assert signup.status_code == 200, signup.text
    # PasskeySignupChallenge.swift:52-63 and PublicKeyCredentialCreationOptions.swift:33-58.
    challenge = signup.json()
    options = challenge["authn_params_public_key"]
    assert isinstance(challenge["auth_session"], str) and isinstance(options["rp"]["id"], str)
    assert b64url_decode(options["user"]["id"]) and isinstance(options["user"]["name"], str)
    assert b64url_decode(options["challenge"])
    created = authenticator.create(options)
    # Auth0Authentication.swift:215-257: id, rawId, type, response {clientDataJSON,
    # attestationObject} and authenticatorAttachment; no transports or extension results.
    response = {"id": created["id"], "rawId": created["rawId"], "type": "public-key",
                "response": {k: created["response"][k] for k in ("clientDataJSON", "attestationObject")},
                "authenticatorAttachment": "platform"}
    # An unproven address: no refresh token, and the scope does not claim offline_access.
    decodes_as_credentials(auth0_swift(sesame, "POST", "/oauth/token", {
        "client_id": sesame.client_id, "grant_type": WEBAUTHN_GRANT, "auth_session": challenge["auth_session"],
        "authn_response": response, "scope": DEFAULT_SCOPE}), refresh=False)

    # Auth0Authentication.swift:197-212 passkeyLoginChallenge: client_id only.
    login = auth0_swift(sesame, "POST", "/passkey/challenge", {"client_id": sesame.client_id})
    assert login.status_code == 200, login.text
    # PasskeyLoginChallenge.swift:40-49: auth_session, rpId and challenge.
    challenge = login.json()
    assert isinstance(challenge["authn_params_public_key"]["rpId"], str)
    asserted = authenticator.get(challenge["authn_params_public_key"])
    # Auth0Authentication.swift:151-194: the assertion with userHandle.
    response = {"id": asserted["id"], "rawId": asserted["rawId"], "type": "public-key",
                "response": {k: asserted["response"][k]
                             for k in ("clientDataJSON", "authenticatorData", "signature", "userHandle")},
                "authenticatorAttachment": "platform"}
    decodes_as_credentials(auth0_swift(sesame, "POST", "/oauth/token", {
        "client_id": sesame.client_id, "grant_type": WEBAUTHN_GRANT, "auth_session": challenge["auth_session"],
        "authn_response": response, "scope": DEFAULT_SCOPE}), refresh=False)


# -- Web Auth ------------------------------------------------------------------------------

def _hidden_fields(page: str) -> dict:
    return {name: html.unescape(value)
            for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page)}


def _web_auth_code(sesame, callback: str, challenge: str, dpop: DPoPKey | None = None) -> str:
    """The browser half of Web Auth: the /authorize URL Auth0.swift opens, the hosted page
    walked with a code, and the code from the callback."""
    # Auth0WebAuth.swift:325-374 buildAuthorizeURL: scope (Auth0.swift:42 via :338), client_id,
    # response_type "code", redirect_uri, state, nonce, dpop_jkt under useDPoP() (:362), the PKCE
    # pair (OAuth2Grant.swift:59-60) and the auth0Client telemetry item (Auth0ClientInfo.swift:46-52).
    query = {"scope": DEFAULT_SCOPE, "client_id": sesame.client_id, "response_type": "code",
             "redirect_uri": callback, "state": secrets.token_urlsafe(16), "nonce": secrets.token_urlsafe(16),
             "code_challenge": challenge, "code_challenge_method": "S256", "auth0Client": AUTH0_CLIENT}
    if dpop is not None:
        query["dpop_jkt"] = dpop.thumbprint
    browser = requests.Session()
    authorize = sesame.url("/authorize?") + urlencode(query).replace("+", "%2B")
    page = browser.get(authorize, timeout=10)
    assert page.status_code == 200, page.text
    fields = {**_hidden_fields(page.text), "username": "web@example.com", "send": "code"}
    code_page = browser.post(sesame.url("/authorize/start"), data=fields, timeout=10)
    assert code_page.status_code == 200, code_page.text
    fields = {**_hidden_fields(code_page.text), "otp": sesame.last_code("web@example.com")}
    answer = browser.post(sesame.url("/authorize/verify"), data=fields, allow_redirects=False, timeout=10)
    # The hosted page answers each POST with a redirect to its step page (Post/Redirect/Get),
    # and "Not now" on the passkey offer goes back through /authorize: follow the page's own
    # redirects, as the browser Auth0.swift opens does, until one leaves for the callback.
    for _ in range(5):
        if answer.status_code == 303 and answer.headers["location"].startswith("/"):
            answer = browser.get(urljoin(sesame.url("/"), answer.headers["location"]), allow_redirects=False, timeout=10)
        elif answer.status_code == 200 and 'id="skip"' in answer.text:  # the passkey offer: "Not now"
            skip = re.search(r'id="skip" href="([^"]+)"', answer.text).group(1)
            answer = browser.get(urljoin(sesame.url("/"), html.unescape(skip)), allow_redirects=False, timeout=10)
        else:
            break
    assert answer.status_code == 303, answer.text
    location = urlparse(answer.headers["location"])
    assert "code" in parse_qs(location.query), answer.headers["location"]
    assert parse_qs(location.query)["state"] == [query["state"]]
    return parse_qs(location.query)["code"][0]


def _pkce() -> tuple:
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def _web_auth_app(sesame) -> str:
    """Auth0.swift's https callback (``useHTTPS()``), registered as callback and logout URL."""
    callback = f"https://{sesame.domain}/ios/{BUNDLE}/callback"
    sesame.cli("admin", "apps", "update", sesame.client_id, "--add-callback", callback, "--logout-url", callback)
    return callback


def test_web_auth_code_exchange_with_pkce_and_clear_session(sesame):
    callback = _web_auth_app(sesame)
    verifier, challenge = _pkce()
    code = _web_auth_code(sesame, callback, challenge)
    # Auth0Authentication.swift:368-376 codeExchange via token() (:571-583): client_id, code,
    # code_verifier, redirect_uri and grant_type.
    decodes_as_credentials(auth0_swift(sesame, "POST", "/oauth/token", {
        "client_id": sesame.client_id, "code": code, "code_verifier": verifier, "redirect_uri": callback,
        "grant_type": "authorization_code"}))
    # Auth0WebAuth.swift:287-294 clearSession: GET /v2/logout?returnTo=<redirect>&client_id=….
    logout = requests.get(sesame.url("/v2/logout?") + urlencode({"returnTo": callback, "client_id": sesame.client_id}),
                          allow_redirects=False, timeout=10)
    assert logout.status_code in (302, 303) and logout.headers["location"].startswith(callback), logout.text


# -- useDPoP() -------------------------------------------------------------------------------

def test_dpop_login_userinfo_and_renew(sesame):
    key, nonce = DPoPKey(), []
    assert start_passwordless(sesame, "email", "ana@example.com", "email").status_code == 200
    # DPoP.swift:178-184: the token endpoint gets a proof for every grant but refresh_token
    # (which gets one once a key exists); the first is answered use_dpop_nonce and retried.
    credentials = decodes_as_credentials(login_with_code(
        sesame, "ana@example.com", sesame.last_code("ana@example.com"), "email", dpop=key, nonce=nonce))
    assert credentials["token_type"] == "DPoP" and nonce
    authorization = {"Authorization": f"DPoP {credentials['access_token']}"}
    profile = decodes_as_user_profile(auth0_swift(sesame, "GET", "/userinfo", headers=authorization,
                                                  dpop=key, nonce=nonce))
    assert profile["email"] == "ana@example.com"
    # Without the proof, the error decodes as Auth0.swift reads it.
    code, _ = decodes_as_authentication_error(auth0_swift(sesame, "GET", "/userinfo", headers=authorization))
    assert code == "invalid_dpop_proof"
    renewed = decodes_as_credentials(auth0_swift(sesame, "POST", "/oauth/token", {
        "refresh_token": credentials["refresh_token"], "grant_type": "refresh_token", "client_id": sesame.client_id},
        dpop=key, nonce=nonce))
    assert renewed["token_type"] == "DPoP"


def test_dpop_web_auth_code_exchange(sesame):
    callback = _web_auth_app(sesame)
    key, nonce = DPoPKey(), []
    verifier, challenge = _pkce()
    code = _web_auth_code(sesame, callback, challenge, dpop=key)
    credentials = decodes_as_credentials(auth0_swift(sesame, "POST", "/oauth/token", {
        "client_id": sesame.client_id, "code": code, "code_verifier": verifier, "redirect_uri": callback,
        "grant_type": "authorization_code"}, dpop=key, nonce=nonce))
    assert credentials["token_type"] == "DPoP"


# Attack: the code in a useDPoP() app's callback is stolen (another app claiming the same
# callback) and exchanged, verifier included, without the app's key: /authorize carried
# dpop_jkt (Auth0WebAuth.swift:362), so the exchange needs a proof by that key.
def test_a_stolen_dpop_web_auth_code_without_the_key_is_refused(sesame):
    callback = _web_auth_app(sesame)
    verifier, challenge = _pkce()
    code = _web_auth_code(sesame, callback, challenge, dpop=DPoPKey())
    stolen = auth0_swift(sesame, "POST", "/oauth/token", {
        "client_id": sesame.client_id, "code": code, "code_verifier": verifier, "redirect_uri": callback,
        "grant_type": "authorization_code"}, dpop=DPoPKey(), nonce=[])
    assert stolen.status_code == 403
    assert decodes_as_authentication_error(stolen)[0] == "invalid_grant"
