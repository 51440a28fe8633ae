"""A rolling upgrade on PostgreSQL: instances of the previous release and of this one serve one
database side by side while the upgrade goes through, as behind a load balancer.

Runs when SESAME_PREVIOUS_BIN names the previous release's ``sesame`` (scripts/test builds it
from the commit scripts/previous-release names) and SESAME_TEST_POSTGRES_URL a server. The
upgrade is the one docs/operations.md describes: replace the instances one at a time; the first
new one migrates the schema, and the old ones still running keep serving on it, because each
migration only adds (tables, columns with defaults, indexes).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import requests

from flows import SHARED_ISSUER, exchange_code, refresh, requires_postgres, sign_in, start_code, userinfo

PREVIOUS_BIN = os.environ.get("SESAME_PREVIOUS_BIN")

pytestmark = [
    requires_postgres,
    pytest.mark.skipif(not PREVIOUS_BIN, reason="SESAME_PREVIOUS_BIN (the previous release's sesame) is not set"),
]


def cross_login(started_on, finished_on, reader, email: str) -> dict:
    """A code started on one instance and exchanged on the other; ``reader`` reads the outbox
    (an instance of this release: the previous one's CLI refuses the newer schema)."""
    assert start_code(started_on, email).status_code == 200
    response = exchange_code(finished_on, email, reader.last_code(email), scope="openid offline_access")
    assert response.status_code == 200, response.text
    return response.json()


def test_a_rolling_upgrade_keeps_the_previous_and_the_new_release_serving(sesame_factory, database_url):
    env = {"SESAME_DATABASE_URL": database_url, "SESAME_ISSUER": SHARED_ISSUER}
    previous = Path(PREVIOUS_BIN)
    old_a = sesame_factory(env=env, name="old-a", binary=previous)
    old_b = sesame_factory(env=env, name="old-b", binary=previous)
    before = sign_in(old_a, "ana@example.com", scope="openid offline_access")
    jwks = requests.get(old_a.url("/.well-known/jwks.json"), timeout=10).json()

    # The first instance replaced: the new release migrates the schema the old one still serves.
    old_b.stop()
    new_b = sesame_factory(env=env, name="new-b")
    status = new_b.cli("admin", "migrate", "status").stdout
    assert "up to date" in status.lower() or "current" in status.lower(), status

    # Both releases serve, each finishing the other's logins.
    for started_on, finished_on in ((old_a, new_b), (new_b, old_a)):
        tokens = cross_login(started_on, finished_on, new_b, f"{started_on.data_dir.name}@example.com")
        assert userinfo(started_on, tokens["access_token"]).status_code == 200
    # A refresh token of before the upgrade rotates on the new release, then on the old one.
    rotated = refresh(new_b, before["refresh_token"])
    assert rotated.status_code == 200, rotated.text
    again = refresh(old_a, rotated.json()["refresh_token"])
    assert again.status_code == 200, again.text
    assert userinfo(new_b, again.json()["access_token"]).status_code == 200
    assert requests.get(new_b.url("/.well-known/jwks.json"), timeout=10).json() == jwks

    # An instance of the previous release restarted now refuses the newer schema instead of
    # serving it half-understood, and says which versions it met.
    refused = subprocess.run(
        [str(previous), "serve", "--port", "0", "--data-dir", str(old_b.data_dir)],
        env=old_b.env, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 78, refused.stdout + refused.stderr
    assert "newer" in (refused.stdout + refused.stderr).lower()

    # The last old instance replaced: the upgrade is done and nothing was lost.
    old_a.stop()
    new_a = sesame_factory(env=env, name="new-a")
    assert refresh(new_a, again.json()["refresh_token"]).status_code == 200
    assert cross_login(new_a, new_b, new_a, "zoe@example.com")["access_token"]
