"""Secrets sealed at rest: the signing keys, HMAC keys, client secrets and stored settings are
sealed under a master key that is not in the database.

The attack each test stands against: a copy of the database (a backup, a replica, a stolen
disk) used to mint tokens with the signing key, or to authenticate as a confidential client.
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
import subprocess
import time

import requests

from conftest import BASE_ENV, sesame_binary
from flows import SHARED_ISSUER, exchange_code, refresh, requires_postgres, sign_in, start_code


def database_bytes(data_dir) -> bytes:
    return b"".join((data_dir / name).read_bytes() for name in ("sesame.sqlite", "sesame.sqlite-wal")
                    if (data_dir / name).exists())


def start_refused(data_dir, env=None) -> subprocess.CompletedProcess:
    """Runs `serve` on `data_dir` expecting it to stop before listening."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SESAME_")}
    environment.update(BASE_ENV)
    environment.update(env or {})
    return subprocess.run([str(sesame_binary()), "serve", "--port", "0", "--data-dir", str(data_dir)],
                          env=environment, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def jwks(server):
    return requests.get(server.url("/.well-known/jwks.json"), timeout=10).json()


def test_a_copy_of_the_database_holds_no_signing_key_or_client_secret(sesame):
    """The first start seals everything under a generated key kept beside the database, and
    says so; the database file then holds no PEM, no client secret and no stored password."""
    key_file = sesame.data_dir / "master.key"
    assert key_file.exists() and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(base64.b64decode(key_file.read_text().strip())) == 32
    assert "Generated a master key in" in sesame.logs()
    app = sesame.cli_json("admin", "apps", "create", "--name", "Backend", "--type", "regular", "--json")
    secret = app["client_secret"]
    sesame.cli("admin", "settings", "set", "email.smtp.password=a-stored-smtp-password")
    sign_in(sesame, "ana@example.com", scope="openid offline_access")
    sesame.stop()
    copied = database_bytes(sesame.data_dir)
    for clear in (b"PRIVATE KEY", b"-----BEGIN", secret.encode(), b"a-stored-smtp-password"):
        assert clear not in copied, clear


def test_without_its_master_key_the_database_does_not_start(sesame_factory, tmp_path):
    """A stolen copy cannot be started to mint tokens either: without the key the server
    refuses, naming the key it needs and where to give it; with the key, nothing was lost."""
    server = sesame_factory(name="sealed")
    tokens = sign_in(server, "ana@example.com", scope="openid offline_access")
    keys = jwks(server)
    server.stop()
    kept_apart = tmp_path / "kept-apart.key"
    shutil.move(server.data_dir / "master.key", kept_apart)

    refused = start_refused(server.data_dir)
    assert refused.returncode == 78, refused.stderr
    assert "sealed under master key" in refused.stderr and "SESAME_MASTER_KEY_FILE" in refused.stderr
    assert not (server.data_dir / "master.key").exists(), "a sealed database must not get a new key"

    wrong = tmp_path / "wrong.key"
    wrong.write_text(base64.b64encode(os.urandom(32)).decode())
    refused = start_refused(server.data_dir, {"SESAME_MASTER_KEY_FILE": str(wrong)})
    assert refused.returncode == 78 and "does not open this database" in refused.stderr, refused.stderr

    again = sesame_factory(env={"SESAME_MASTER_KEY_FILE": str(kept_apart)}, name="sealed")
    assert jwks(again) == keys
    assert refresh(again, tokens["refresh_token"]).status_code == 200


def test_the_master_key_rotates_while_the_server_runs(sesame_factory, tmp_path):
    """`sesame admin keys rotate-master` rewraps the data key: the running server keeps
    signing, the next start uses the new key, and the old key no longer opens the database."""
    server = sesame_factory(name="rotating")
    old = (server.data_dir / "master.key").read_text()
    new_key = tmp_path / "new.key"
    new_key.write_text(base64.b64encode(os.urandom(32)).decode())
    rotated = server.cli_json("admin", "keys", "rotate-master", "--new-key-file", str(new_key), "--json")
    assert rotated["key_file"] == str(server.data_dir / "master.key")
    assert rotated["master_key"] != rotated["old_master_key"]
    tokens = sign_in(server, "ana@example.com", scope="openid offline_access")
    server.stop()
    assert (server.data_dir / "master.key").read_text() == new_key.read_text()

    old_key = tmp_path / "old.key"
    old_key.write_text(old)
    refused = start_refused(server.data_dir, {"SESAME_MASTER_KEY_FILE": str(old_key)})
    assert refused.returncode == 78, refused.stderr
    restarted = sesame_factory(name="rotating")
    assert refresh(restarted, tokens["refresh_token"]).status_code == 200


def sealed_column(database_url: str, query: str) -> list:
    result = subprocess.run(["psql", database_url, "-Atc", query], capture_output=True, text=True, check=True)
    return result.stdout.split()


@requires_postgres
def test_an_hmac_key_rotated_on_one_instance_is_used_by_both(sesame_factory, database_url, tmp_path):
    """Two instances sealed under one key file on PostgreSQL; `rotate-hmac` from the command
    line. Until the new key activates both hash with the old one, after it both hash with the
    new one, and what was hashed before (a refresh token) still verifies: a code started on
    one instance is accepted on the other throughout, so no person is refused mid-login."""
    key_file = tmp_path / "master.key"
    key_file.write_text(base64.b64encode(os.urandom(32)).decode())
    env = {"SESAME_DATABASE_URL": database_url, "SESAME_ISSUER": SHARED_ISSUER,
           "SESAME_MASTER_KEY_FILE": str(key_file), "SESAME_SIGNING_KEYS_REFRESH_INTERVAL": "1"}
    a = sesame_factory(env=env, name="a")
    b = sesame_factory(env=env, name="b")
    for value in sealed_column(database_url, "SELECT private_key_pem FROM signing_keys"):
        assert value.startswith("sealed:v1:"), "PostgreSQL holds the signing key sealed"
    tokens = sign_in(a, "ana@example.com", scope="openid offline_access")
    rotated = b.cli_json("admin", "keys", "rotate-hmac", "--activate-after", "2", "--json")
    assert rotated["keys"] == 2

    def code_across(first, second, email):
        assert start_code(first, email).status_code == 200
        return exchange_code(second, email, first.last_code(email)).status_code

    deadline, attempt = time.monotonic() + 5, 0
    while time.monotonic() < deadline:
        attempt += 1
        assert code_across(a, b, f"a{attempt}@example.com") == 200
        assert code_across(b, a, f"b{attempt}@example.com") == 200
        time.sleep(0.5)
    assert refresh(b, tokens["refresh_token"]).status_code == 200
