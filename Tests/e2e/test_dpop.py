"""DPoP (RFC 9449) end to end: proof-bound logins, refreshes and /userinfo, over raw HTTP."""

from __future__ import annotations

import requests

from flows import FULL_SCOPE, OTP_GRANT, DPoPKey, dpop_post, htu, start_code


def _bound_sign_in(sesame, key: DPoPKey, email: str = "ana@example.com") -> dict:
    assert start_code(sesame, email).status_code == 200
    response = dpop_post(sesame, key, "/oauth/token", {
        "grant_type": OTP_GRANT, "client_id": sesame.client_id, "realm": "email", "username": email,
        "otp": sesame.last_code(email), "scope": FULL_SCOPE})
    assert response.status_code == 200, response.text
    assert response.headers.get("DPoP-Nonce"), "a nonce for the next proof"
    return response.json()


def _userinfo(sesame, token: str, proof: str | None, scheme: str = "DPoP") -> requests.Response:
    headers = {"Authorization": f"{scheme} {token}"}
    if proof:
        headers["DPoP"] = proof
    return requests.get(sesame.url("/userinfo"), headers=headers, timeout=10)


def test_discovery_names_the_proof_algorithm(sesame):
    document = requests.get(sesame.url("/.well-known/openid-configuration"), timeout=10).json()
    assert document["dpop_signing_alg_values_supported"] == ["ES256"]


def test_the_token_endpoint_asks_for_a_nonce_then_binds_the_tokens(sesame):
    key = DPoPKey()
    assert start_code(sesame, "ana@example.com").status_code == 200
    body = {"grant_type": OTP_GRANT, "client_id": sesame.client_id, "realm": "email",
            "username": "ana@example.com", "otp": sesame.last_code("ana@example.com"), "scope": FULL_SCOPE}
    first = requests.post(sesame.url("/oauth/token"), json=body, timeout=10,
                          headers={"DPoP": key.proof("POST", htu(sesame, "/oauth/token"))})
    assert first.status_code == 400 and first.json()["error"] == "use_dpop_nonce"
    nonce = first.headers["DPoP-Nonce"]
    second = requests.post(sesame.url("/oauth/token"), json=body, timeout=10,
                           headers={"DPoP": key.proof("POST", htu(sesame, "/oauth/token"), nonce=nonce)})
    assert second.status_code == 200, second.text
    tokens = second.json()
    assert tokens["token_type"] == "DPoP" and tokens["refresh_token"]
    url = htu(sesame, "/userinfo")
    answer = _userinfo(sesame, tokens["access_token"], key.proof("GET", url, access_token=tokens["access_token"]))
    assert answer.status_code == 200 and answer.json()["email"] == "ana@example.com"


# Attack: a bound access token is stolen and used as a bearer token, or with a proof the
# thief makes with their own key; both are refused with a DPoP challenge.
def test_bearer_use_of_a_bound_token_is_refused(sesame):
    key = DPoPKey()
    token = _bound_sign_in(sesame, key)["access_token"]
    bearer = _userinfo(sesame, token, None, scheme="Bearer")
    assert bearer.status_code == 401 and bearer.json()["error"] == "invalid_token"
    assert bearer.headers["WWW-Authenticate"].startswith('DPoP error="invalid_token"')
    thief = _userinfo(sesame, token, DPoPKey().proof("GET", htu(sesame, "/userinfo"), access_token=token))
    assert thief.status_code == 401 and thief.headers["WWW-Authenticate"].startswith("DPoP ")


# Attack: a proof seen once (a proxy log) is sent again with the token it was made for.
def test_a_replayed_proof_is_refused(sesame):
    key = DPoPKey()
    token = _bound_sign_in(sesame, key)["access_token"]
    proof = key.proof("GET", htu(sesame, "/userinfo"), access_token=token)
    assert _userinfo(sesame, token, proof).status_code == 200
    replay = _userinfo(sesame, token, proof)
    assert replay.status_code == 401 and replay.json()["error"] == "invalid_dpop_proof"


# Attack: a proof made for one URL or method is used on another.
def test_a_proof_for_another_url_or_method_is_refused(sesame):
    key = DPoPKey()
    token = _bound_sign_in(sesame, key)["access_token"]
    for proof in (key.proof("GET", htu(sesame, "/oauth/token"), access_token=token),
                  key.proof("POST", htu(sesame, "/userinfo"), access_token=token)):
        answer = _userinfo(sesame, token, proof)
        assert answer.status_code == 401 and answer.json()["error"] == "invalid_dpop_proof"


# Attack: a proof made long ago is used now.
def test_a_stale_proof_is_refused(sesame):
    import time
    key = DPoPKey()
    token = _bound_sign_in(sesame, key)["access_token"]
    stale = key.proof("GET", htu(sesame, "/userinfo"), access_token=token, iat=int(time.time()) - 900)
    assert _userinfo(sesame, token, stale).json()["error"] == "invalid_dpop_proof"


# Attack: a public client's refresh token is stolen and spent without the device's key.
def test_a_stolen_refresh_token_without_the_key_is_refused(sesame):
    key = DPoPKey()
    refresh_token = _bound_sign_in(sesame, key)["refresh_token"]
    body = {"grant_type": "refresh_token", "client_id": sesame.client_id, "refresh_token": refresh_token}
    bare = requests.post(sesame.url("/oauth/token"), json=body, timeout=10)
    assert bare.status_code == 403 and bare.json()["error"] == "invalid_grant"
    assert dpop_post(sesame, DPoPKey(), "/oauth/token", body).json()["error"] == "invalid_grant"
    renewed = dpop_post(sesame, key, "/oauth/token", body)
    assert renewed.status_code == 200 and renewed.json()["token_type"] == "DPoP"
    heir = {**body, "refresh_token": renewed.json()["refresh_token"]}
    assert requests.post(sesame.url("/oauth/token"), json=heir, timeout=10).json()["error"] == "invalid_grant"
