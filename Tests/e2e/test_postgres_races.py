"""Single-use secrets raced over two `sesame serve` instances on one PostgreSQL database.

Behind a load balancer an attacker who holds a copy of a secret (a code, a link, a passkey
assertion, a device-key JWT) can fire it at every instance at once, hoping that two of them
check it before either has marked it used. Each test here fires ONE secret 50 times at the
same moment, alternating between the instances, and expects exactly one success and 49
clean refusals: never two successes, never a 5xx. The last test checks the other side of a
shared database: a message is delivered once, by the instance that was asked.

Runs when SESAME_TEST_POSTGRES_URL is set (see flows.POSTGRES_URL).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import requests
from joserfc import jwt
from joserfc.jwk import ECKey

from flows import (SHARED_ISSUER, code_in_mail, exchange_code, read_jsonl, requires_postgres, sign_in, start_code,
                   userinfo)
from soft_authenticator import SoftAuthenticator

pytestmark = requires_postgres

RACERS = 50
WEBAUTHN_GRANT = "urn:okta:params:oauth:grant-type:webauthn"
JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ORIGIN = SHARED_ISSUER.rstrip("/")  # a browser on the issuer's own pages: the origin passkeys accept
CALLBACK = "http://localhost:3000/callback"  # the default application's callback URL


def race(servers, send):
    """Calls ``send(server)`` RACERS times at once, alternating over ``servers``; every
    thread waits at a barrier first, so the requests leave together."""
    barrier = threading.Barrier(RACERS)

    def one(i):
        barrier.wait(timeout=30)
        return send(servers[i % len(servers)])

    with ThreadPoolExecutor(max_workers=RACERS) as pool:
        return list(pool.map(one, range(RACERS)))


def describe(responses) -> str:
    seen = Counter((r.status_code, r.headers.get("location") or r.text[:200]) for r in responses)
    return "\n".join(f"{count} x {status} {body}" for (status, body), count in seen.most_common())


def assert_one_winner(responses, error: str = "invalid_grant", busy_allowed: bool = False):
    """Exactly one 200; every other answer a 403 with the OAuth ``error``; nothing else. With
    ``busy_allowed``, a loser may instead be told to try again (503 temporarily_unavailable): a
    code exchange that finds the right code still held by the winner's exchange says so."""
    if busy_allowed:
        busy = [r for r in responses if r.status_code == 503]
        assert all(r.json()["error"] == "temporarily_unavailable" for r in busy), describe(responses)
        responses = [r for r in responses if r.status_code != 503]
    statuses = Counter(r.status_code for r in responses)
    assert not [s for s in statuses if s >= 500], describe(responses)
    assert statuses == {200: 1, 403: len(responses) - 1}, describe(responses)
    assert {r.json()["error"] for r in responses if r.status_code == 403} == {error}, describe(responses)
    [winner] = [r for r in responses if r.status_code == 200]
    return winner.json()


def assert_tokens_work(server, tokens: dict) -> None:
    response = userinfo(server, tokens["access_token"])
    assert response.status_code == 200, response.text


# -- 1. email one-time code ---------------------------------------------------------------

def test_one_email_code_raced_50_times_over_both_instances_signs_in_once(pair):
    """Attack: a code read over the victim's shoulder (or from a mail log) is replayed on every
    instance at once. Guarantee: the database consumes it once; the 49 others get 403
    invalid_grant, or 503 while the winner's exchange still holds the code."""
    a, b = pair
    assert start_code(a, "bob@example.com").status_code == 200
    code = a.last_code("bob@example.com")
    responses = race((a, b), lambda server: exchange_code(server, "bob@example.com", code))
    assert_tokens_work(b, assert_one_winner(responses, busy_allowed=True))


# -- 2. magic link ------------------------------------------------------------------------

def test_one_magic_link_raced_50_times_over_both_instances_gives_one_authorization_code(pair):
    """Attack: a magic link leaked from a mailbox scanner or a proxy log is submitted on every
    instance at once. Guarantee: exactly one submission is redirected to the callback with an
    authorization code; the other 49 are redirected with error=access_denied (RFC 6749
    §4.1.2.1: a bad secret is reported to the callback, not as a 4xx page), and the one code
    redeems for tokens."""
    a, b = pair
    verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    response = requests.post(a.url("/passwordless/start"), json={
        "client_id": a.client_id, "connection": "email", "email": "lin@example.com", "send": "link",
        "authParams": {"redirect_uri": CALLBACK, "state": "s1", "scope": "openid", "response_type": "code",
                       "code_challenge": challenge, "code_challenge_method": "S256"}}, timeout=10)
    assert response.status_code == 200, response.text
    link = a.last_message("lin@example.com")["link"]
    assert link.startswith(SHARED_ISSUER + "passwordless/verify_redirect?")
    query = urlsplit(link).query

    # Opening the link (a GET, as a mail scanner does) shows a confirm page and spends nothing.
    confirm = requests.get(b.url("/passwordless/verify_redirect?" + query), timeout=10)
    assert confirm.status_code == 200

    # The page's form posts the link's parameters back (with the page's forgery token, which
    # every instance accepts: they share the key); race that POST.
    form = {name: values[0] for name, values in parse_qs(query).items()}
    form["csrf_token"] = re.search(r'name="csrf_token" value="([^"]+)"', confirm.text).group(1)
    cookies = confirm.cookies.get_dict()
    responses = race((a, b), lambda server: requests.post(
        server.url("/passwordless/verify_redirect"), data=form, cookies=cookies, allow_redirects=False, timeout=10))

    assert {r.status_code for r in responses} == {303}, describe(responses)
    redirects = [urlsplit(r.headers["location"]) for r in responses]
    assert {f"{u.scheme}://{u.netloc}{u.path}" for u in redirects} == {CALLBACK}, describe(responses)
    params = [parse_qs(u.query) for u in redirects]
    assert all(p["state"] == ["s1"] for p in params), describe(responses)
    codes = [p["code"][0] for p in params if "code" in p]
    errors = Counter(p["error"][0] for p in params if "error" in p)
    assert len(codes) == 1 and errors == {"access_denied": RACERS - 1}, describe(responses)

    tokens = requests.post(b.url("/oauth/token"), json={
        "grant_type": "authorization_code", "client_id": b.client_id, "code": codes[0], "redirect_uri": CALLBACK,
        "code_verifier": verifier}, timeout=10)
    assert tokens.status_code == 200, tokens.text
    assert_tokens_work(a, tokens.json())


# -- 3. passkey challenge -----------------------------------------------------------------

def passkey_token(server, auth_session: str, authn_response: dict):
    return requests.post(server.url("/oauth/token"), json={
        "grant_type": WEBAUTHN_GRANT, "client_id": server.client_id, "auth_session": auth_session,
        "authn_response": authn_response, "scope": "openid"}, timeout=10)


def test_one_passkey_assertion_raced_50_times_over_both_instances_signs_in_once(pair):
    """Attack: a captured passkey assertion (signed over one server challenge) is replayed on
    every instance at once, before the challenge's session is marked used. Guarantee: the
    session (auth_session) is consumed once; 49 get 403 invalid_grant."""
    a, b = pair
    authenticator = SoftAuthenticator(origin=ORIGIN)
    registration = requests.post(a.url("/passkey/register"), json={
        "client_id": a.client_id, "user_profile": {"email": "pia@example.com"}}, timeout=10)
    assert registration.status_code == 200, registration.text
    session = registration.json()
    signup = passkey_token(b, session["auth_session"], authenticator.create(session["authn_params_public_key"]))
    assert signup.status_code == 200, signup.text

    challenge = requests.post(b.url("/passkey/challenge"), json={"client_id": b.client_id}, timeout=10)
    assert challenge.status_code == 200, challenge.text
    session = challenge.json()
    assertion = authenticator.get(session["authn_params_public_key"])
    responses = race((a, b), lambda server: passkey_token(server, session["auth_session"], assertion))
    assert_tokens_work(a, assert_one_winner(responses))
    assert {r.json()["error_description"] for r in responses if r.status_code == 403} == {
        "The passkey session is unknown, expired or already used: start again."}

    # The authenticator itself still works: a fresh challenge signs in.
    session = requests.post(a.url("/passkey/challenge"), json={"client_id": a.client_id}, timeout=10).json()
    again = passkey_token(b, session["auth_session"], authenticator.get(session["authn_params_public_key"]))
    assert again.status_code == 200, again.text


# -- 4. device-key JWT --------------------------------------------------------------------

def test_one_device_key_jwt_raced_50_times_over_both_instances_signs_in_once(pair):
    """Attack: a device-key assertion (a JWT signed by the phone's key) intercepted in transit
    is replayed on every instance within its 60-second lifetime. Guarantee: its jti is claimed
    once in the shared database; 49 get 403 invalid_grant."""
    a, b = pair
    tokens = sign_in(a, "dev@example.com", scope="openid create:current_user_device_credentials")
    key = ECKey.generate_key("P-256")
    public = key.as_dict(private=False)
    registered = requests.post(a.url("/api/v2/device-credentials"), timeout=10,
                               headers={"Authorization": f"Bearer {tokens['access_token']}"}, json={
        "device_name": "Dev's phone", "type": "public_key", "device_id": "race-device",
        "value": {name: public[name] for name in ("kty", "crv", "x", "y")}})
    assert registered.status_code == 201, registered.text
    credential = registered.json()

    now = int(time.time())
    assertion = jwt.encode({"alg": "ES256", "kid": credential["id"]}, {
        "sub": credential["user_id"], "aud": SHARED_ISSUER, "iat": now, "exp": now + 60, "jti": uuid.uuid4().hex}, key)
    responses = race((a, b), lambda server: requests.post(server.url("/oauth/token"), json={
        "grant_type": JWT_BEARER_GRANT, "client_id": server.client_id, "assertion": assertion,
        "scope": "openid"}, timeout=10))
    assert_tokens_work(b, assert_one_winner(responses))
    assert {r.json()["error_description"] for r in responses if r.status_code == 403} == {
        "The assertion has already been used (replayed jti)."}


# -- 5. refresh token: test_refresh_tokens_rotate_once_across_instances (50-way) ------------

# -- 6. a message is sent once ------------------------------------------------------------

def test_each_message_is_sent_once_by_two_instances_sharing_the_database(sesame_factory, database_url, helper,
                                                                         tmp_path):
    """Guarantee: with two instances on one database and real SMTP delivery, each
    /passwordless/start sends exactly one email: no instance also sends (or re-sends) a
    message another instance was asked for, and none is lost. Each mailed code signs in."""
    mail_log = tmp_path / "mail.jsonl"
    smtp_port = helper("smtp_sink.py", "--out", str(mail_log))
    env = {"SESAME_DATABASE_URL": database_url, "SESAME_ISSUER": SHARED_ISSUER,
           "SESAME_EMAIL_PROVIDER": "smtp", "SESAME_EMAIL_SMTP_HOST": "127.0.0.1",
           "SESAME_EMAIL_SMTP_PORT": str(smtp_port), "SESAME_EMAIL_SMTP_SECURITY": "none",
           "SESAME_EMAIL_SMTP_FROM": "Example Login <login@example.com>"}
    a = sesame_factory(env=env, name="a")
    b = sesame_factory(env=env, name="b")
    addresses = [f"user{i:02d}@example.com" for i in range(20)]
    with ThreadPoolExecutor(max_workers=len(addresses)) as pool:
        responses = list(pool.map(lambda i: start_code((a, b)[i % 2], addresses[i]), range(len(addresses))))
    assert [r.status_code for r in responses] == [200] * len(addresses), describe(responses)

    read_jsonl(mail_log, len(addresses))
    time.sleep(1.0)  # room for a late duplicate to show up
    mails = read_jsonl(mail_log, len(addresses))
    recipients = Counter(rcpt for mail in mails for rcpt in mail["rcpt_tos"])
    assert recipients == Counter(addresses), recipients
    assert a.outbox() == []  # SMTP took every message; nothing fell back to the console outbox

    codes = {mail["rcpt_tos"][0]: code_in_mail(mail) for mail in mails}
    for i, address in enumerate(addresses):  # finished on the instance that did not send it
        response = exchange_code((b, a)[i % 2], address, codes[address])
        assert response.status_code == 200, (address, response.text)
