"""What stops an operator's mistake before it does harm: configuration that refuses unknown keys,
unknown `SESAME_*` variables and values of the wrong type, naming the closest known key;
`sesame admin settings show`, which says where each setting came from; admin commands that never
create a database and take a user by email or phone; management tokens that must be given their
scopes and may expire; `--type` by Auth0's code; JSON on every line with log_format=json; one
line for a busy port."""

from __future__ import annotations

import json
import time

import pytest
import requests

import flows
from conftest import run_sesame


def serve(data_dir, env: dict | None = None):
    return run_sesame("serve", "--port", "0", "--data-dir", str(data_dir), env=env, timeout=60)


def test_a_misspelt_environment_variable_stops_serve_and_names_the_closest_key(tmp_path):
    """`SESAME_EMIAL_PROVIDER=smtp` would otherwise leave email on the console outbox without a
    word: `serve` stops with status 78 before it creates anything, naming the variable and the
    one meant."""
    data = tmp_path / "data"
    result = serve(data, {"SESAME_EMIAL_PROVIDER": "smtp"})
    assert result.returncode == 78, (result.stdout, result.stderr)
    assert "unknown environment variable SESAME_EMIAL_PROVIDER: did you mean SESAME_EMAIL_PROVIDER?" in result.stderr
    assert not data.exists(), "nothing is created before the configuration is accepted"


def test_a_misspelt_file_key_stops_serve_and_names_the_closest_key(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "sesame.json").write_text(json.dumps({"emial": {"provider": "smtp"}, "audit": {"retention_dys": 30}}))
    result = serve(data)
    assert result.returncode == 78, (result.stdout, result.stderr)
    path = data / "sesame.json"
    assert f"unknown key emial.provider in {path}: did you mean email.provider?" in result.stderr, result.stderr
    assert f"unknown key audit.retention_dys in {path}: did you mean audit.retention_days?" in result.stderr


def test_values_of_the_wrong_type_stop_serve(tmp_path):
    """A boolean where a number belongs, a number where a boolean belongs, a list where a
    single value belongs (in the file) and text that is no number (in the environment): each is
    named, all at once."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "sesame.json").write_text(json.dumps(
        {"shutdown": {"delay": True}, "trust_proxy": 1, "issuer": ["https://a.example/"], "audiences": [1, 2]}))
    result = serve(data, {"SESAME_SWEEP_INTERVAL": "often"})
    assert result.returncode == 78, (result.stdout, result.stderr)
    path = data / "sesame.json"
    for problem in [f"shutdown.delay in {path}: true is not a whole number",
                    f"trust_proxy in {path}: 1 is not true or false",
                    f'issuer in {path}: ["https://a.example/"] is not a string',
                    f"audiences in {path}: [1,2] is not a list of strings",
                    "sweep_interval (SESAME_SWEEP_INTERVAL): 'often' is not a whole number"]:
        assert problem in result.stderr, (problem, result.stderr)


def test_variables_that_are_not_configuration_are_left_alone(sesame_factory):
    """The test harness's, the tools' and the client commands' SESAME_* variables are not server
    configuration, and a server started beside them runs."""
    server = sesame_factory(env={
        "SESAME_TEST_POSTGRES_URL": "postgres://nobody@127.0.0.1:1/none", "SESAME_TEST_POSTGRES_CONTROL": "/bin/true",
        "SESAME_BIN": "/usr/bin/sesame", "SESAME_RELEASE_TARBALL": "/tmp/x.tar.gz", "SESAME_LOAD_TESTS": "1",
        "SESAME_SCHEMATHESIS_SEED": "1", "SESAME_SHARED_DIR": "/tmp", "SESAME_ARTIFACTS": "/tmp",
        "SESAME_CHROMIUM": "/usr/bin/chromium", "SESAME_DOMAIN": "http://localhost:3000",
        "SESAME_CLIENT_ID": "abc", "SESAME_FUZZ_TARGET": "cbor"})
    assert server.cli_json("admin", "apps", "list")


@pytest.mark.sesame_env(SESAME_TOKENS_ID_TOKEN_LIFETIME="900", SESAME_EMAIL_SMTP_PASSWORD="hunter2-secret")
def test_settings_show_says_where_each_setting_came_from(sesame):
    """Each effective setting with its source: a default, the file, the environment or the
    database (`admin settings set`); the environment wins over the database; secrets masked."""
    (sesame.data_dir / "sesame.json").write_text(json.dumps({"audit": {"retention_days": 30}}))
    sesame.cli("admin", "settings", "set", "sweep_interval=120", "tokens.id_token_lifetime=600")
    shown = {s["key"]: (s["value"], s["source"]) for s in sesame.cli_json("admin", "settings", "show")}
    assert shown["tokens.id_token_lifetime"] == ("900", "environment")
    assert shown["sweep_interval"] == ("120", "database")
    assert shown["audit.retention_days"] == ("30", "file")
    assert shown["log_level"] == ("info", "default")
    assert shown["data_dir"] == (str(sesame.data_dir), "flag")
    assert shown["email.smtp.password"] == ("****", "environment")
    assert shown["metrics.token"] == (None, "default")
    text = sesame.cli("admin", "settings", "show").stdout
    assert "hunter2-secret" not in text
    assert any(line.split()[:3] == ["sweep_interval", "database", "120"] for line in text.splitlines()), text


# -- a command line that cannot hurt by accident ------------------------------------------------

def test_commands_other_than_serve_never_create_a_database(tmp_path):
    """Run in the wrong directory, an admin command used to create a new, empty deployment and
    answer from it ("The outbox is empty."): now it fails, names the file it looked for, and
    leaves nothing behind."""
    nowhere = tmp_path / "nowhere"
    for args in (["admin", "users", "list"], ["outbox"], ["admin", "tokens", "create", "--name", "x", "--all-scopes"],
                 ["admin", "settings", "show"], ["admin", "migrate", "status"]):
        result = run_sesame(*args, "--data-dir", str(nowhere))
        assert result.returncode == 1, (args, result.stdout, result.stderr)
        assert f"no database at {nowhere / 'sesame.sqlite'}" in result.stderr, (args, result.stderr)
        assert not nowhere.exists(), args


def test_verbose_and_errors_name_the_database(sesame):
    database = f"{sesame.data_dir / 'sesame.sqlite'} (SQLite)"
    listed = sesame.cli("admin", "users", "list", "--verbose")
    assert f"database: {database}" in listed.stderr
    missing = sesame.cli("admin", "users", "show", "nobody@example.com", check=False)
    assert missing.returncode == 1
    assert "No user nobody@example.com." in missing.stderr and f"(database: {database})" in missing.stderr


def test_a_user_is_named_by_id_email_or_phone_number(sesame):
    """`users show|block|unblock|delete`, and `--user` of `sessions`, `audit`, `devices` and
    `passkeys list`, take an email address (in any case) or a phone number as well as a user_id."""
    flows.sign_in(sesame, "ana@example.com")
    phone = "+15551234567"
    assert flows.start_code(sesame, phone, connection="sms").status_code == 200
    flows.tokens_for_code(sesame, phone, sesame.last_code(phone), realm="sms")
    ana = sesame.cli_json("admin", "users", "show", "Ana@Example.com ")
    assert ana["email"] == "ana@example.com"
    assert sesame.cli_json("admin", "users", "show", ana["user_id"]) == ana
    assert sesame.cli_json("admin", "users", "show", phone)["phone_number"] == phone
    assert sesame.cli("admin", "users", "block", "ana@example.com").stdout.strip() == f"blocked {ana['user_id']}"
    assert sesame.cli_json("admin", "users", "show", "ana@example.com")["blocked"] is True
    sesame.cli("admin", "users", "unblock", "ana@example.com")
    events = sesame.cli_json("admin", "audit", "list", "--user", "ana@example.com")
    assert events and {e["user_id"] for e in events} == {ana["user_id"]}
    assert sesame.cli_json("admin", "sessions", "list", "--user", "ana@example.com") == []
    assert sesame.cli_json("admin", "devices", "list", "--user", phone) == []
    assert sesame.cli_json("admin", "passkeys", "list", "--user", "ana@example.com") == []
    assert sesame.cli("admin", "users", "delete", phone).stdout.startswith("deleted sms|")
    gone = sesame.cli("admin", "users", "show", phone, check=False)
    assert gone.returncode == 1 and f"No user {phone}." in gone.stderr


def test_audit_type_filters_by_auth0_code_or_event_name(sesame):
    """`--json` prints Auth0's codes (`s`, `fp`), so `--type s` must find what it printed."""
    flows.sign_in(sesame, "ana@example.com")
    flows.start_code(sesame, "ana@example.com")
    assert flows.exchange_code(sesame, "ana@example.com", "000000").status_code == 403
    by_code = sesame.cli_json("admin", "audit", "list", "--type", "s")
    assert by_code and {e["type"] for e in by_code} == {"s"}
    assert {e["details"]["event"] for e in by_code} <= {"login", "user_created"}
    by_name = sesame.cli_json("admin", "audit", "list", "--type", "login")
    assert by_name and {e["details"]["event"] for e in by_name} == {"login"}
    failed = sesame.cli_json("admin", "audit", "list", "--type", "fp")
    assert failed and {e["type"] for e in failed} == {"fp"}


def test_management_tokens_need_scopes_said_and_can_expire(sesame):
    """A token with every power is asked for (`--all-scopes`), never a default; `--expires-in`
    makes one the management API refuses once its time is up."""
    bare = sesame.cli("admin", "tokens", "create", "--name", "ci", check=False)
    assert bare.returncode != 0 and "--scope" in bare.stderr and "--all-scopes" in bare.stderr, bare.stderr
    both = sesame.cli("admin", "tokens", "create", "--name", "ci", "--scope", "read:users", "--all-scopes", check=False)
    assert both.returncode != 0
    assert sesame.cli_json("admin", "tokens", "create", "--name", "all", "--all-scopes")["scopes"] == []
    assert sesame.cli("admin", "tokens", "create", "--name", "x", "--all-scopes", "--expires-in", "soon",
                      check=False).returncode != 0
    made = sesame.cli_json("admin", "tokens", "create", "--name", "brief", "--scope", "read:users", "--expires-in", "3s")
    assert made["scopes"] == ["read:users"] and made["expires_at"]
    headers = {"Authorization": f"Bearer {made['token']}"}
    assert requests.get(sesame.url("/api/v2/users"), headers=headers, timeout=10).status_code == 200
    time.sleep(3.5)
    expired = requests.get(sesame.url("/api/v2/users"), headers=headers, timeout=10)
    assert expired.status_code == 401 and expired.json()["errorCode"] == "invalid_token"
    listed = {t["name"]: t for t in sesame.cli_json("admin", "tokens", "list")}
    assert listed["brief"]["expires_at"] == made["expires_at"] and "expires_at" not in listed["all"]


def test_with_json_logs_every_line_is_json(sesame_factory, tmp_path):
    """log_format=json: the start banner and "ready" on standard output, and every line on
    standard error, are JSON objects; so is the refusal of a bad configuration."""
    server = sesame_factory(env={"SESAME_LOG_FORMAT": "json"})
    flows.sign_in(server, "ana@example.com")
    server.stop()
    stdout = [line for line in server.stdout_lines if line.strip()]
    stderr = [line for line in (server.data_dir / "server.stderr.log").read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in stdout + stderr]
    assert all({"timestamp", "level", "message"} <= set(r) for r in records)
    banner = json.loads(stdout[0])
    assert banner["message"] == f"Sesame is listening on 127.0.0.1:{server.port}" and banner["client_id"] == server.client_id
    assert any(json.loads(line)["message"].startswith("ready in ") for line in stdout)
    refused = serve(tmp_path / "refused", {"SESAME_LOG_FORMAT": "json", "SESAME_POTR": "1"})
    assert refused.returncode == 78
    [line] = [line for line in refused.stderr.splitlines() if line.strip()]
    assert "SESAME_POTR" in json.loads(line)["message"] and json.loads(line)["level"] == "error"
    unreachable = serve(tmp_path / "unreachable", {
        "SESAME_LOG_FORMAT": "json", "SESAME_DATABASE_URL": "postgres://nobody@127.0.0.1:1/none?sslmode=disable",
        "SESAME_DATABASE_TIMEOUT": "1"})
    assert unreachable.returncode == 1, (unreachable.stdout, unreachable.stderr)
    lines = [json.loads(line) for line in (unreachable.stdout + unreachable.stderr).splitlines() if line.strip()]
    assert lines and lines[-1]["level"] == "error" and lines[-1]["message"].startswith("sesame: ")


def test_a_busy_port_gives_one_human_line(sesame, tmp_path):
    result = run_sesame("serve", "--port", str(sesame.port), "--data-dir", str(tmp_path / "second"))
    assert result.returncode == 1, (result.stdout, result.stderr)
    # Log lines of the start before the bind (a new data directory's generated master key) are
    # not the refusal; the refusal itself is one line.
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line[:4].isdigit()]
    assert len(lines) == 1, lines
    assert f"127.0.0.1:{sesame.port}" in lines[0] and "already in use" in lines[0]
