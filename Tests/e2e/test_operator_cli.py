"""What stops an operator's mistake before it does harm: configuration that refuses unknown keys,
unknown `SESAME_*` variables and values of the wrong type, naming the closest known key;
`sesame admin settings show`, which says where each setting came from."""

from __future__ import annotations

import json

import pytest

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

