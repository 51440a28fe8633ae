"""Two `sesame serve` instances on one PostgreSQL database, as behind a load balancer.

Runs when SESAME_TEST_POSTGRES_URL names a server whose `postgres` role may create databases
(scripts/test starts one); each test gets a database of its own (conftest.database_url).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import requests
from joserfc import jwt
from joserfc.jwk import KeySet

from conftest import sesame_binary
from flows import (POSTGRES_CONTROL, SHARED_ISSUER, code_in_mail, exchange_code, read_jsonl, refresh, requires_postgres,
                   requires_postgres_control, sign_in, start_code, userinfo)

pytestmark = requires_postgres


def test_both_instances_share_the_application_and_keys(pair):
    a, b = pair
    assert a.client_id == b.client_id
    keys_a = requests.get(a.url("/.well-known/jwks.json"), timeout=10).json()
    keys_b = requests.get(b.url("/.well-known/jwks.json"), timeout=10).json()
    assert keys_a == keys_b


def test_a_code_started_on_one_instance_finishes_on_the_other(pair):
    a, b = pair
    assert start_code(a, "ana@example.com").status_code == 200
    response = exchange_code(b, "ana@example.com", a.last_code("ana@example.com"))
    assert response.status_code == 200, response.text
    assert userinfo(a, response.json()["access_token"]).status_code == 200


def test_one_code_used_20_times_across_both_instances_succeeds_once(pair):
    """A replayed code raced over two instances: the database's single-use gate holds.

    A loser may be told to try again (503) while the winner's exchange still holds the code,
    as OTPGrantTests allows; what matters is that exactly one exchange logs in."""
    a, b = pair
    assert start_code(a, "bob@example.com").status_code == 200
    code = a.last_code("bob@example.com")
    with ThreadPoolExecutor(max_workers=20) as pool:
        statuses = list(pool.map(lambda i: exchange_code((a, b)[i % 2], "bob@example.com", code).status_code,
                                 range(20)))
    assert statuses.count(200) == 1
    assert statuses.count(403) + statuses.count(503) == 19


def test_rate_limits_count_across_instances(sesame_factory, database_url):
    env = {"SESAME_DATABASE_URL": database_url, "SESAME_ISSUER": SHARED_ISSUER,
           "SESAME_RATE_LIMIT_START_PER_RECIPIENT": "3"}
    a = sesame_factory(env=env, name="a")
    b = sesame_factory(env=env, name="b")
    statuses = [start_code((a, b)[i % 2], "eve@example.com").status_code for i in range(5)]
    assert statuses == [200, 200, 200, 429, 429]


def test_instances_starting_together_on_an_empty_database_set_it_up_once(sesame_factory, database_url):
    """Without the setup lock each would create its own signing key and default application."""
    env = {"SESAME_DATABASE_URL": database_url, "SESAME_ISSUER": SHARED_ISSUER}
    with ThreadPoolExecutor(max_workers=3) as pool:
        servers = list(pool.map(lambda name: sesame_factory(env=env, name=name), ["a", "b", "c"]))
    assert len({server.client_id for server in servers}) == 1
    assert len(servers[0].apps()) == 1
    jwks = [requests.get(server.url("/.well-known/jwks.json"), timeout=10).json() for server in servers]
    assert jwks[0] == jwks[1] == jwks[2] and len(jwks[0]["keys"]) == 1
    assert start_code(servers[0], "zoe@example.com").status_code == 200
    assert exchange_code(servers[2], "zoe@example.com", servers[0].last_code("zoe@example.com")).status_code == 200


@requires_postgres_control
def test_a_database_restart_answers_503_fast_and_loses_nothing(sesame_factory, database_url):
    """While PostgreSQL is down requests fail fast with 503; afterwards the instance has
    reconnected by itself and everything acknowledged before is still there."""
    env = {"SESAME_DATABASE_URL": database_url, "SESAME_ISSUER": SHARED_ISSUER, "SESAME_DATABASE_TIMEOUT": "2"}
    server = sesame_factory(env=env, name="a")
    assert start_code(server, "ana@example.com").status_code == 200
    code = server.last_code("ana@example.com")
    subprocess.run(["bash", POSTGRES_CONTROL, "pause"], check=True, capture_output=True)
    try:
        down = start_code(server, "bob@example.com")
        assert down.status_code == 503, down.text
        assert down.json()["error"] == "temporarily_unavailable"
        assert down.elapsed.total_seconds() < 5
        # The readiness check says so too, so a load balancer can take the instance out.
        health = requests.get(server.url("/health"), timeout=10)
        assert health.status_code == 503 and health.elapsed.total_seconds() < 5
    finally:
        subprocess.run(["bash", POSTGRES_CONTROL, "resume"], check=True, capture_output=True)
    assert requests.get(server.url("/health"), timeout=10).status_code == 200
    response = exchange_code(server, "ana@example.com", code)
    assert response.status_code == 200, response.text


def test_refresh_tokens_rotate_once_across_instances(pair):
    """A stolen refresh token raced over both instances: one rotation wins (plus at most the
    one retry the reuse interval allows, which gets the same replacement), and presenting a
    rotated token anywhere beyond that revokes the whole family."""
    a, b = pair
    tokens = sign_in(a, "ray@example.com", scope="openid offline_access")
    with ThreadPoolExecutor(max_workers=50) as pool:
        responses = list(pool.map(lambda i: refresh((a, b)[i % 2], tokens["refresh_token"]), range(50)))
    winners = [r for r in responses if r.status_code == 200]
    assert 1 <= len(winners) <= 2
    assert len({r.json()["refresh_token"] for r in winners}) == 1
    assert all(r.status_code == 403 for r in responses if r.status_code != 200)
    # The race itself was reuse: the family is revoked, so even the winner's new token is dead.
    assert refresh(b, winners[0].json()["refresh_token"]).status_code == 403


def kids(server):
    return {key["kid"] for key in requests.get(server.url("/.well-known/jwks.json"), timeout=10).json()["keys"]}


def eventually(condition, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.2)


def test_a_key_rotation_reaches_every_instance(sesame_factory, database_url):
    """A key rotated from the command line is published by every instance, then signs on
    every instance; tokens of the old key verify until it is retired, everywhere."""
    env = {"SESAME_DATABASE_URL": database_url, "SESAME_ISSUER": SHARED_ISSUER,
           "SESAME_SIGNING_KEYS_REFRESH_INTERVAL": "1"}
    a = sesame_factory(env=env, name="a")
    b = sesame_factory(env=env, name="b")
    [old] = kids(a)
    assert start_code(a, "ann@example.com").status_code == 200
    old_token = exchange_code(a, "ann@example.com", a.last_code("ann@example.com")).json()["id_token"]
    new = a.cli_json("admin", "keys", "rotate", "--activate-after", "2")["kid"]
    eventually(lambda: kids(a) == kids(b) == {old, new})

    def signed_by(server, email):
        assert start_code(server, email).status_code == 200
        token = exchange_code(server, email, server.last_code(email)).json()["id_token"]
        return jwt.decode(token, KeySet.import_key_set(requests.get(
            (b if server is a else a).url("/.well-known/jwks.json"), timeout=10).json())).header["kid"]

    eventually(lambda: signed_by(a, f"a{uuid.uuid4().hex[:6]}@example.com") == new)
    eventually(lambda: signed_by(b, f"b{uuid.uuid4().hex[:6]}@example.com") == new)
    keys_now = KeySet.import_key_set(requests.get(b.url("/.well-known/jwks.json"), timeout=10).json())
    assert jwt.decode(old_token, keys_now).header["kid"] == old, "the previous key still verifies"
    states = {key["kid"]: key["state"] for key in b.cli_json("admin", "keys", "list")}
    assert states == {new: "current", old: "previous"}
    b.cli("admin", "keys", "retire", old)
    eventually(lambda: kids(a) == kids(b) == {new})
    refused = b.cli("admin", "keys", "retire", new, check=False)
    assert refused.returncode != 0 and "rotate to a new key first" in refused.stderr


def test_instances_need_nothing_but_the_database_url(sesame_factory, database_url, helper, tmp_path):
    """Settings stored once with `sesame admin settings set` reach every instance: two
    instances started with only SESAME_DATABASE_URL use the stored issuer and deliver codes
    through the stored SMTP server, and one finishes the other's login."""
    mail_log = tmp_path / "mail.jsonl"
    smtp_port = helper("smtp_sink.py", "--out", str(mail_log))
    settings = [f"issuer={SHARED_ISSUER}", "email.provider=smtp", "email.smtp.host=127.0.0.1",
                f"email.smtp.port={smtp_port}", "email.smtp.security=none"]
    cli = [str(sesame_binary()), "admin", "settings"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    refused = subprocess.run([*cli, "set", "email.provider=smtp", "--database", database_url],
                             env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "email.smtp.host" in refused.stderr, "an incomplete setting is refused"
    subprocess.run([*cli, "set", *settings, "--database", database_url], env=env, check=True, capture_output=True, timeout=60)

    a = sesame_factory(env={"SESAME_DATABASE_URL": database_url}, name="a")
    b = sesame_factory(env={"SESAME_DATABASE_URL": database_url}, name="b")
    for server in (a, b):
        discovery = requests.get(server.url("/.well-known/openid-configuration"), timeout=10).json()
        assert discovery["issuer"] == SHARED_ISSUER
    assert start_code(a, "sam@example.com").status_code == 200
    [mail] = read_jsonl(mail_log, 1)
    response = exchange_code(b, "sam@example.com", code_in_mail(mail))
    assert response.status_code == 200, response.text
    claims = jwt.decode(response.json()["id_token"], KeySet.import_key_set(
        requests.get(a.url("/.well-known/jwks.json"), timeout=10).json())).claims
    assert claims["iss"] == SHARED_ISSUER
    listed = json.loads(subprocess.run([*cli, "list", "--json", "--database", database_url], env=env, check=True,
                                       capture_output=True, text=True, timeout=60).stdout)
    assert listed["issuer"] == SHARED_ISSUER and listed["email.smtp.port"] == str(smtp_port)
