"""Backups that restore: `sesame admin backup` takes a consistent copy of a running SQLite
server while people sign in (SQLite's online backup, not a file copy), and `sesame admin restore`
makes it the database of a fresh data directory, from which a server answers as before: the same
JWKS, the same users, and a refresh token issued before the backup still refreshes."""

from __future__ import annotations

import stat
import threading
import time

import requests
from joserfc import jwt
from joserfc.jwk import KeySet

import flows
from conftest import run_sesame


def test_restore_drill_backup_while_logins_run(sesame_factory, tmp_path):
    env = {"SESAME_ISSUER": flows.SHARED_ISSUER}
    live = sesame_factory(env=env, name="live")
    before = flows.sign_in(live, "ana@example.com", scope="openid offline_access")
    jwks = requests.get(live.url("/.well-known/jwks.json"), timeout=10).json()
    stop, started, failures = threading.Event(), [0], []

    def sign_ins(worker: int) -> None:
        n = 0
        while not stop.is_set():
            n += 1
            response = flows.start_code(live, f"w{worker}-{n}@example.com")
            if response.status_code == 200:
                started[0] += 1
            else:
                failures.append(response.text)

    workers = [threading.Thread(target=sign_ins, args=(i,), daemon=True) for i in range(2)]
    for worker in workers:
        worker.start()
    time.sleep(0.5)
    backup = tmp_path / "sesame-backup.sqlite"
    made = live.cli("admin", "backup", str(backup))
    during = started[0]
    time.sleep(0.3)
    stop.set()
    for worker in workers:
        worker.join(timeout=20)
    assert not failures, failures[:3]
    assert during > 0 and started[0] > during, "codes were being started while the backup ran"
    assert f"to {backup}" in made.stdout
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600, "the backup holds the keys: private to its owner"
    again = live.cli("admin", "backup", str(backup), check=False)
    assert again.returncode == 1 and "exists" in again.stderr, "an existing file is never overwritten"
    live.stop()

    fresh = tmp_path / "restored"
    restored_run = run_sesame("admin", "restore", str(backup), "--data-dir", str(fresh))
    assert restored_run.returncode == 0, (restored_run.stdout, restored_run.stderr)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700
    # The backup holds the secrets sealed; the master key was kept apart, and the restore needs it.
    assert "sealed under master key" in restored_run.stdout
    assert not (fresh / "master.key").exists()
    env["SESAME_MASTER_KEY_FILE"] = str(live.data_dir / "master.key")
    restored = sesame_factory(env=env, name="restored")
    assert restored.client_id == live.client_id
    assert requests.get(restored.url("/.well-known/jwks.json"), timeout=10).json() == jwks
    keys = KeySet.import_key_set(jwks)
    ana = jwt.decode(before["id_token"], keys, algorithms=["RS256"]).claims["sub"]
    assert restored.cli_json("admin", "users", "show", "ana@example.com")["user_id"] == ana
    refreshed = flows.refresh(restored, before["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text
    renewed = jwt.decode(refreshed.json()["id_token"], keys, algorithms=["RS256"])
    assert renewed.claims["sub"] == ana and renewed.claims["iss"] == flows.SHARED_ISSUER, \
        "the restored server signs with the backed-up key, for the same user and issuer"
    refused = run_sesame("admin", "restore", str(backup), "--data-dir", str(fresh))
    assert refused.returncode == 1 and "a database exists" in refused.stderr, refused.stderr


def test_backup_and_restore_refuse_what_they_cannot_do(tmp_path):
    nowhere = tmp_path / "nowhere"
    missing = run_sesame("admin", "backup", str(tmp_path / "b.sqlite"), "--data-dir", str(nowhere))
    assert missing.returncode == 1 and f"no database at {nowhere / 'sesame.sqlite'}" in missing.stderr
    assert not (tmp_path / "b.sqlite").exists()
    (tmp_path / "not-a-db.sqlite").write_bytes(b"")
    empty = run_sesame("admin", "restore", str(tmp_path / "not-a-db.sqlite"), "--data-dir", str(nowhere))
    assert empty.returncode == 1 and "not a Sesame database" in empty.stderr, empty.stderr
    assert not (nowhere / "sesame.sqlite").exists(), "a refused restore leaves no database behind"
