"""Moving a deployment from SQLite to PostgreSQL with `sesame admin migrate-to-postgres`.

Users keep their sessions: the application, the signing key, the HMAC secret and the refresh
tokens all come along. Runs when SESAME_TEST_POSTGRES_URL names a server whose `postgres`
role may create databases (scripts/test starts one); each test gets a database of its own
(conftest.database_url).
"""

from __future__ import annotations

import json

import requests

from flows import refresh, requires_postgres, sign_in

pytestmark = requires_postgres
# The same issuer before and after: tokens name it.
ISSUER = "https://login.example.test/"


def jwks(server):
    return requests.get(server.url("/.well-known/jwks.json"), timeout=10).json()


def migrate(server, url, *args):
    return server.cli("admin", "migrate-to-postgres", "--to", url, *args, check=False)


def test_a_signed_in_user_stays_signed_in_after_the_move(sesame_factory, database_url):
    before = sesame_factory(env={"SESAME_ISSUER": ISSUER}, name="sqlite")
    tokens = sign_in(before, "ana@example.com", scope="openid offline_access")
    keys = jwks(before)
    before.stop()

    moved = migrate(before, database_url, "--json")
    assert moved.returncode == 0, moved.stderr
    report = json.loads(moved.stdout)
    assert report["tables"]["users"] == 1
    assert report["tables"]["refresh_tokens"] == 1
    assert report["total"] == sum(report["tables"].values())
    assert "sesame:****@" in report["target"]
    # The secrets came across sealed: the PostgreSQL instances need the SQLite deployment's key.
    key_file = report["master_key_file"]
    assert key_file.endswith("master.key")

    after = sesame_factory(env={"SESAME_ISSUER": ISSUER, "SESAME_DATABASE_URL": database_url,
                                "SESAME_MASTER_KEY_FILE": key_file}, name="postgres")
    assert after.client_id == before.client_id
    assert jwks(after) == keys
    userinfo = requests.get(after.url("/userinfo"), headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=10)
    assert userinfo.status_code == 200, userinfo.text
    users = after.cli_json("admin", "users", "list")
    assert [user["email"] for user in users] == ["ana@example.com"]
    assert userinfo.json()["sub"] == users[0]["user_id"]
    rotated = refresh(after, tokens["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    assert rotated.json()["refresh_token"] != tokens["refresh_token"]
    # The spent token gets its one retry within the reuse interval, then is recognised as
    # reuse, as it would have been on SQLite.
    assert refresh(after, tokens["refresh_token"]).json()["refresh_token"] == rotated.json()["refresh_token"]
    assert refresh(after, tokens["refresh_token"]).status_code == 403
    # New rows after the move: another sign-in works on the copied sequences.
    assert sign_in(after, "bob@example.com", scope="openid offline_access")["refresh_token"]


def test_a_database_that_already_holds_a_deployment_is_refused(sesame_factory, database_url):
    source = sesame_factory(env={"SESAME_ISSUER": ISSUER}, name="sqlite")
    sign_in(source, "ana@example.com", scope="openid offline_access")
    source.stop()
    # A server started on the target first gives it its own key and application.
    occupied = sesame_factory(env={"SESAME_ISSUER": ISSUER, "SESAME_DATABASE_URL": database_url}, name="postgres")
    refused = migrate(source, database_url)
    assert refused.returncode != 0
    assert "not empty" in refused.stderr, refused.stderr
    assert occupied.cli_json("admin", "users", "list") == []
    assert [app["client_id"] for app in occupied.apps()] == [occupied.client_id]


def test_the_summary_lists_every_table(sesame_factory, database_url):
    source = sesame_factory(env={"SESAME_ISSUER": ISSUER}, name="sqlite")
    source.stop()
    moved = migrate(source, database_url)
    assert moved.returncode == 0, moved.stderr
    assert "what it writes from now on is not copied" in moved.stderr
    lines = moved.stdout.splitlines()
    assert lines[0].startswith("Copied ") and "(PostgreSQL)" in lines[0]
    rows = dict(line.split() for line in lines[1:] if len(line.split()) == 2)
    assert rows["signing_keys"] == "1" and rows["applications"] == "1" and rows["connections"] == "2"
    assert "SESAME_DATABASE_URL" in moved.stdout
    assert "SESAME_MASTER_KEY_FILE" in moved.stdout


def test_a_missing_sqlite_database_is_an_error(tmp_path, sesame_factory, database_url):
    server = sesame_factory(name="sqlite")
    server.stop()
    missing = server.cli("admin", "migrate-to-postgres", "--to", database_url, "--database", str(tmp_path / "nope.sqlite"),
                         check=False)
    assert missing.returncode != 0
    assert "no SQLite database" in missing.stderr
