"""Auth0.swift 3.x's My Account API calls, pinned: ``Auth0.myAccount(token:)
.authenticationMethods`` (the passkey enrolment, the listing and the deletion an app makes),
each request as the SDK builds it (file and line at auth0/Auth0.swift 850e1a2, version
3.1.0) and each answer decoded as the SDK decodes it. Requests go through
``test_auth0_swift.auth0_swift`` (JSON bodies, ``Content-Type`` on every request, the
``Auth0-Client`` header, and the DPoP handling of ``useDPoP()``).

The My Account client's base URL is ``https://{domain}/me/v1`` (Auth0MyAccount.swift:13 and
:29); its token goes in ``Authorization: <Bearer|DPoP> <token>`` (MyAccount.swift:90-91,
SenderConstraining.swift:34-36). The test server speaks http, so the audience an app would
write as ``https://{domain}/me/`` is the issuer's origin with ``/me/`` here.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime
from urllib.parse import urlparse

from flows import DPoPKey
from soft_authenticator import SoftAuthenticator, b64url_decode
from test_auth0_swift import (DEFAULT_SCOPE, WEBAUTHN_GRANT, auth0_swift, decodes_as_credentials, login_with_code,
                              start_passwordless)

ENROL_SCOPE = "create:me:authentication_methods read:me:authentication_methods delete:me:authentication_methods"
METHODS = "/me/v1/authentication-methods"


def my_account_audience(sesame) -> str:
    """``https://{domain}/me/`` for the issuer's host (its origin, as this server speaks http)."""
    issuer = urlparse(sesame.issuer)
    return f"{issuer.scheme}://{issuer.netloc}/me/"


def api_credentials(sesame, refresh_token: str, **dpop) -> dict:
    """CredentialsManager.swift:644 apiCredentials(forAudience:scope:) renews with
    (:1052) Auth0Authentication.swift:387-414: refresh_token, grant_type, client_id, audience,
    and the scope with openid added (:396-400, includeRequiredScope in Shared.swift:16-19).
    APICredentials.swift:47-50 decodes access_token, token_type, expires_in and scope."""
    response = auth0_swift(sesame, "POST", "/oauth/token", {
        "refresh_token": refresh_token, "grant_type": "refresh_token", "client_id": sesame.client_id,
        "scope": "openid " + ENROL_SCOPE, "audience": my_account_audience(sesame)}, **dpop)
    assert response.status_code == 200, response.text
    body = response.json()
    assert isinstance(body["access_token"], str) and body["token_type"] in ("Bearer", "DPoP")
    assert isinstance(body["expires_in"], int) and set(ENROL_SCOPE.split()) <= set(body["scope"].split())
    return body


def signed_in(sesame, email: str, **dpop) -> dict:
    """A passwordless login with Auth0.swift's default scope (so a refresh token), then API
    credentials for the My Account API."""
    assert start_passwordless(sesame, "email", email, "email").status_code == 200
    credentials = decodes_as_credentials(login_with_code(sesame, email, sesame.last_code(email), "email", **dpop))
    return api_credentials(sesame, credentials["refresh_token"], **dpop)


def my_account(sesame, method: str, path: str, token: dict, body: dict | None = None, **dpop):
    """One My Account request as Auth0MyAccountAuthenticationMethods builds it."""
    return auth0_swift(sesame, method, path, body,
                       headers={"Authorization": f"{token['token_type']} {token['access_token']}"}, **dpop)


def decodes_as_enrollment_challenge(response) -> tuple[str, dict, dict]:
    """PasskeyEnrollmentChallenge.swift:58-77: the id is the last path segment of the
    ``Location`` header (then percent-decoded, Auth0MyAccountAuthenticationMethods.swift:50);
    auth_session and the creation options as PublicKeyCredentialCreationOptions.swift:33-58
    read them (rp.id, user.id base64url, user.name, challenge base64url)."""
    assert 200 <= response.status_code < 300, response.text
    method_id = response.headers["Location"].split("/")[-1]
    body = response.json()
    options = body["authn_params_public_key"]
    assert method_id and isinstance(body["auth_session"], str)
    assert isinstance(options["rp"]["id"], str) and isinstance(options["user"]["name"], str)
    assert b64url_decode(options["user"]["id"]) and b64url_decode(options["challenge"])
    return method_id, body, options


def decodes_as_passkey_method(body: dict) -> dict:
    """PasskeyAuthenticationMethod.swift:78-137: created_at ISO 8601 with fractional seconds
    (:81), id, type, identity_user_id, aaguid, relying_party_id; and the credential from the
    same object: key_id, public_key base64 (:126-127), user_handle base64url (:117-118),
    credential_device_type single_device or multi_device (:57-60), credential_backed_up."""
    assert datetime.strptime(body["created_at"], "%Y-%m-%dT%H:%M:%S.%f%z")
    for field in ("id", "type", "identity_user_id", "aaguid", "relying_party_id", "key_id"):
        assert isinstance(body[field], str), field
    assert base64.b64decode(body["public_key"], validate=True)
    assert b64url_decode(body["user_handle"])
    assert body["credential_device_type"] in ("single_device", "multi_device")
    assert isinstance(body["credential_backed_up"], bool)
    return body


def decodes_as_authentication_methods(response) -> list:
    """GetAuthenticationMethodsResponse.swift:1-80: authentication_methods, each with id,
    created_at and usage required, the rest typed when present."""
    assert response.status_code == 200, response.text
    methods = response.json()["authentication_methods"]
    for method in methods:
        assert isinstance(method["id"], str) and isinstance(method["created_at"], str)
        assert all(isinstance(usage, str) for usage in method["usage"])
    return methods


def decodes_as_my_account_error(response) -> tuple:
    """MyAccountError.swift:46-48: code reads type (else error), title reads title (else
    error_description), detail reads detail."""
    body = response.json()
    code = body.get("type") or body.get("error")
    title = body.get("title") or body.get("error_description")
    assert isinstance(code, str) and isinstance(title, str) and isinstance(body.get("detail", ""), str), body
    return code, title, body.get("detail", "")


def enrol(sesame, token: dict, authenticator: SoftAuthenticator, **dpop) -> dict:
    # Auth0MyAccountAuthenticationMethods.swift:30-45 passkeyEnrollmentChallenge: type passkey
    # (identity_user_id and connection only when given).
    started = my_account(sesame, "POST", METHODS, token, {"type": "passkey"}, **dpop)
    method_id, challenge, options = decodes_as_enrollment_challenge(started)
    created = authenticator.create(options)
    # :48-80 enroll(passkey:challenge:): auth_session and authn_response (id, rawId, type,
    # response {clientDataJSON, attestationObject}, authenticatorAttachment) to {id}/verify.
    response = {"id": created["id"], "rawId": created["rawId"], "type": "public-key",
                "response": {k: created["response"][k] for k in ("clientDataJSON", "attestationObject")},
                "authenticatorAttachment": "platform"}
    verified = my_account(sesame, "POST", f"{METHODS}/{method_id}/verify", token,
                          {"auth_session": challenge["auth_session"], "authn_response": response}, **dpop)
    assert 200 <= verified.status_code < 300, verified.text
    return decodes_as_passkey_method(verified.json())


def passkey_login(sesame, authenticator: SoftAuthenticator):
    """Auth0.swift's passkey login (Auth0Authentication.swift:197-212, then :151-194)."""
    login = auth0_swift(sesame, "POST", "/passkey/challenge", {"client_id": sesame.client_id})
    assert login.status_code == 200, login.text
    challenge = login.json()
    asserted = authenticator.get(challenge["authn_params_public_key"])
    response = {"id": asserted["id"], "rawId": asserted["rawId"], "type": "public-key",
                "response": {k: asserted["response"][k]
                             for k in ("clientDataJSON", "authenticatorData", "signature", "userHandle")},
                "authenticatorAttachment": "platform"}
    return auth0_swift(sesame, "POST", "/oauth/token", {
        "client_id": sesame.client_id, "grant_type": WEBAUTHN_GRANT, "auth_session": challenge["auth_session"],
        "authn_response": response, "scope": DEFAULT_SCOPE})


def test_enrol_a_passkey_list_it_sign_in_with_it_and_delete_it(sesame):
    token = signed_in(sesame, "ana@example.com")
    authenticator = SoftAuthenticator(origin=sesame.issuer.rstrip("/"))
    method = enrol(sesame, token, authenticator)
    assert method["type"] == "passkey" and method["key_id"] == method["id"]

    # :284-298 getAuthenticationMethods(type: nil): GET, no query.
    listed = decodes_as_authentication_methods(my_account(sesame, "GET", METHODS, token))
    assert [item["id"] for item in listed] == [method["id"]]
    # :311-320 getAuthenticationMethod(by:).
    one = my_account(sesame, "GET", f"{METHODS}/{method['id']}", token)
    assert one.status_code == 200 and one.json()["id"] == method["id"]

    # The enrolled passkey signs in through Auth0.swift's passkey login; the address is proven,
    # so the login gets a refresh token.
    decodes_as_credentials(passkey_login(sesame, authenticator))

    # :273-282 deleteAuthenticationMethod(by:): DELETE, no body; any 2xx without one
    # (MyAccountHandlers.swift:22-32).
    deleted = my_account(sesame, "DELETE", f"{METHODS}/{method['id']}", token)
    assert deleted.status_code == 204, deleted.text
    assert decodes_as_authentication_methods(my_account(sesame, "GET", METHODS, token)) == []
    assert passkey_login(sesame, authenticator).status_code == 403


def test_another_method_type_is_refused_in_the_my_account_error_shape(sesame):
    token = signed_in(sesame, "ana@example.com")
    # :97-109 enrollTOTP(): Sesame enrols passkeys only.
    refused = my_account(sesame, "POST", METHODS, token, {"type": "totp"})
    assert refused.status_code == 400
    code, title, detail = decodes_as_my_account_error(refused)
    assert code == "invalid_request" and title == "Bad Request" and "passkey" in detail


def test_dpop_api_credentials_enrol_a_passkey(sesame):
    key, nonce = DPoPKey(), []
    token = signed_in(sesame, "ana@example.com", dpop=key, nonce=nonce)
    assert token["token_type"] == "DPoP"
    enrol(sesame, token, SoftAuthenticator(origin=sesame.issuer.rstrip("/")), dpop=key, nonce=nonce)


# Attack: a useDPoP() app's My Account token leaks (a log, a proxy) and is replayed as a
# plain Bearer token, without the key it is bound to, to put the thief's passkey on the account.
def test_a_dpop_bound_my_account_token_used_as_bearer_is_refused(sesame):
    key, nonce = DPoPKey(), []
    token = signed_in(sesame, "ana@example.com", dpop=key, nonce=nonce)
    stolen = {**token, "token_type": "Bearer"}
    refused = my_account(sesame, "POST", METHODS, stolen, {"type": "passkey"})
    assert refused.status_code == 401
    assert decodes_as_my_account_error(refused)[0] == "invalid_token"
    # Sent as DPoP but with a proof by another key: refused too.
    other = my_account(sesame, "POST", METHODS, token, {"type": "passkey"}, dpop=DPoPKey(), nonce=[])
    assert other.status_code == 401
