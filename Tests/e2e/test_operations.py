"""Operating `sesame serve`: Prometheus metrics read by a real parser (prometheus_client),
JSON logs that follow a request by its id and never carry a code or an address, a
SIGTERM under load that fails no request, and one version reported everywhere."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import socket
import threading
import time

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from conftest import free_port, run_sesame
from flows import code_in_mail, read_jsonl, sign_in, start_code, tokens_for_code, whole_lines

METRICS_TOKEN = "metrics-token-0123456789"
#: `sesame --version`: a semantic version (`-dev` for a development build) and the commit.
VERSION_RE = re.compile(r"sesame (\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?) \(commit (\S+)\)")


def families(text: str) -> dict:
    return {family.name: family for family in text_string_to_metric_families(text)}


def sample(family, **labels) -> float:
    return sum(s.value for s in family.samples
               if s.name.endswith("_total") or s.name == family.name
               if all(s.labels.get(k) == v for k, v in labels.items()))


@pytest.mark.sesame_env(SESAME_METRICS_TOKEN=METRICS_TOKEN)
def test_metrics_parse_and_count_what_happened(sesame):
    """A login, a wrong code and a rate-limited start show up in the counters; the text is
    valid Prometheus exposition (the official parser reads every family); without the token
    the metrics are refused (they reveal traffic)."""
    sign_in(sesame, "ana@example.com")
    start_code(sesame, "ana@example.com")
    assert requests.post(sesame.url("/oauth/token"), json={
        "grant_type": "http://auth0.com/oauth/grant-type/passwordless/otp", "client_id": sesame.client_id,
        "realm": "email", "username": "ana@example.com", "otp": "000000"}, timeout=10).status_code == 403
    for _ in range(6):
        start_code(sesame, "bo@example.com")
    assert requests.get(sesame.url("/metrics"), timeout=10).status_code == 401
    text = requests.get(sesame.url("/metrics"), headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10).text
    found = families(text)
    assert found["sesame_http_requests"].type == "counter"
    assert sample(found["sesame_http_requests"], route="/oauth/token", status="200") >= 1
    assert found["sesame_http_request_duration_seconds"].type == "histogram"
    assert sample(found["sesame_logins"], method="otp", result="success") == 1
    assert sample(found["sesame_logins"], method="otp", result="failure") == 1
    assert sample(found["sesame_codes_issued"], connection="email", kind="code") >= 6
    assert sample(found["sesame_rate_limit_refusals"], rule="start:to") >= 1
    assert sample(found["sesame_deliveries"], channel="email", outcome="sent") >= 1
    for gauge in ("sesame_delivery_queue_depth", "sesame_delivery_queue_oldest_age_seconds",
                  "sesame_signing_key_age_seconds", "sesame_storage_operations_in_flight"):
        assert found[gauge].type == "gauge", gauge
    assert found["sesame_storage_operation_duration_seconds"].type == "histogram"
    assert "ana@example.com" not in text and "bo@example.com" not in text


def test_metrics_stay_off_the_public_port_unless_asked(sesame_factory):
    """Without metrics.token, /metrics is not on the public port at all; metrics.port opens
    a separate listener (loopback by default) that needs no token."""
    port = free_port()
    server = sesame_factory(env={"SESAME_METRICS_PORT": str(port)})
    assert requests.get(server.url("/metrics"), timeout=10).status_code == 404
    text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    assert "sesame_http_requests_total" in families(text)["sesame_http_requests"].samples[0].name
    assert requests.get(server.url("/health/live"), timeout=10).json() == {"status": "ok"}
    assert requests.get(server.url("/health/ready"), timeout=10).json()["status"] == "ok"


def test_json_logs_follow_a_request_and_hide_secrets(sesame_factory, helper, tmp_path):
    """With log_format=json every line is a JSON object; the access line of a request carries
    the caller's X-Request-Id (returned in the response), route, status and duration; no line
    holds the code or the email address (mail goes to a real SMTP server, not the console)."""
    mail_log = tmp_path / "mail.jsonl"
    smtp_port = helper("smtp_sink.py", "--out", str(mail_log))
    server = sesame_factory(env={
        "SESAME_LOG_FORMAT": "json", "SESAME_EMAIL_PROVIDER": "smtp", "SESAME_EMAIL_SMTP_HOST": "127.0.0.1",
        "SESAME_EMAIL_SMTP_PORT": str(smtp_port), "SESAME_EMAIL_SMTP_SECURITY": "none"})
    response = requests.post(server.url("/passwordless/start"), headers={"X-Request-Id": "trace-42"}, json={
        "client_id": server.client_id, "connection": "email", "email": "secret.person@example.com", "send": "code"},
        timeout=10)
    assert response.status_code == 200 and response.headers["X-Request-Id"] == "trace-42"
    generated = requests.get(server.url("/health/live"), timeout=10).headers["X-Request-Id"]
    assert len(generated) >= 16
    [mail] = read_jsonl(mail_log, 1)
    code = code_in_mail(mail)
    tokens_for_code(server, "secret.person@example.com", code)
    time.sleep(0.5)
    lines = whole_lines((server.data_dir / "server.stderr.log").read_text())
    records = [json.loads(line) for line in lines]
    access = [r for r in records if r.get("message") == "request" and r.get("request_id") == "trace-42"]
    assert len(access) == 1, records[-5:]
    assert access[0]["route"] == "/passwordless/start" and access[0]["status"] == "200"
    assert float(access[0]["duration_ms"]) >= 0 and access[0]["client_ip"] == "127.0.0.1"
    assert all({"timestamp", "level", "message"} <= set(r) for r in records)
    assert any(r.get("request_id") == generated for r in records)
    text = "\n".join(lines)
    assert code not in text and "secret.person" not in text


def test_sigterm_under_load_fails_no_request(sesame_factory):
    """SIGTERM while 8 clients start codes behind a load balancer (here: a checker that polls
    /health/ready every 100 ms and takes the instance out of rotation when it answers 503):
    during shutdown.delay the server is not ready but still serves; then it stops accepting
    and drains. No request fails or hangs, and the process exits 0 promptly."""
    # Limits far above what 8 clients can send in these seconds: the test is about shutdown, and
    # the suite's per-address limit (1,000 an hour) is reached within the first two seconds.
    server = sesame_factory(env={
        "SESAME_RATE_LIMIT_START_PER_RECIPIENT": "100000", "SESAME_RATE_LIMIT_START_PER_IP": "100000000",
        "SESAME_SHUTDOWN_DELAY": "2"})
    in_rotation, stop = threading.Event(), threading.Event()
    in_rotation.set()
    errors, answered = [], [0]
    lock = threading.Lock()

    def balancer():
        while in_rotation.is_set():
            try:
                if requests.get(server.url("/health/ready"), timeout=2).status_code != 200:
                    in_rotation.clear()
            except requests.RequestException:
                in_rotation.clear()
            time.sleep(0.1)

    def client(worker: int):
        session, n = requests.Session(), 0  # keep-alive, as a balancer's upstream pool
        while not stop.is_set() and in_rotation.is_set():
            n += 1
            try:
                response = session.post(server.url("/passwordless/start"), json={
                    "client_id": server.client_id, "connection": "email", "email": f"w{worker}-{n}@example.com",
                    "send": "code"}, timeout=15)
            except requests.RequestException as error:
                with lock:
                    errors.append(repr(error))
                continue
            with lock:
                if response.status_code == 200:
                    answered[0] += 1
                else:
                    errors.append((response.status_code, response.text))

    threads = [threading.Thread(target=balancer, daemon=True)]
    threads += [threading.Thread(target=client, args=(i,), daemon=True) for i in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(2)
    before = answered[0]
    started = time.monotonic()
    os.kill(server.process.pid, signal.SIGTERM)
    exit_code = server.process.wait(timeout=30)
    took = time.monotonic() - started
    stop.set()
    for thread in threads:
        thread.join(timeout=20)
    print(f"{answered[0]} answered ({answered[0] - before} after SIGTERM), exit {exit_code} in {took:.2f} s")
    assert not errors, errors[:5]
    assert not in_rotation.is_set(), "the balancer never saw the instance leave"
    assert answered[0] > before, "requests during the delay were served"
    assert exit_code == 0 and 2 <= took < 15
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1).close()


@pytest.mark.sesame_env(SESAME_METRICS_TOKEN=METRICS_TOKEN)
def test_one_version_everywhere(sesame):
    """`sesame --version` prints a semantic version and the commit; /health/ready and
    /health name the same, and so does the `sesame_build_info` metric (Prometheus's info idiom:
    a gauge of 1 whose labels say what runs), so an operator can tell which build answers."""
    printed = subprocess.run([str(sesame.binary), "--version"], capture_output=True, text=True, timeout=30)
    assert printed.returncode == 0, printed.stderr
    match = VERSION_RE.fullmatch(printed.stdout.strip())
    assert match, printed.stdout
    version, commit = match.groups()
    for path in ("/health/ready", "/health"):
        assert requests.get(sesame.url(path), timeout=10).json() == {"status": "ok", "version": version, "commit": commit}
    text = requests.get(sesame.url("/metrics"), headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=10).text
    info = families(text)["sesame_build_info"]
    assert info.type == "gauge"
    assert [(s.labels, s.value) for s in info.samples] == [({"version": version, "commit": commit}, 1.0)]


def test_a_newer_schema_is_refused_naming_both_versions(sesame):
    """A database migrated by a newer Sesame (here: one extra migration this binary does not
    know) stops `serve` with status 78 before anything is changed, naming the database's schema
    version and this binary's; `admin migrate up` refuses it too, and `status` shows it."""
    status = sesame.cli_json("admin", "migrate", "status")
    known, last = status["binary_version"], status["applied"][-1]
    assert status["database_version"] == known and status["pending"] == [] and status["unknown"] == []
    sesame.stop()
    with contextlib.closing(sqlite3.connect(sesame.data_dir / "sesame.sqlite")) as db, db:
        db.execute("INSERT INTO schema_migrations (id, applied_at) VALUES ('9999_from_a_newer_sesame', 0)")
    refused = run_sesame("serve", "--port", "0", "--data-dir", str(sesame.data_dir))
    assert refused.returncode == 78, (refused.stdout, refused.stderr)
    assert f"version {known + 1} (9999_from_a_newer_sesame)" in refused.stderr, refused.stderr
    assert f"version {known} ({last})" in refused.stderr, refused.stderr
    assert "Sesame is listening" not in refused.stdout
    up = sesame.cli("admin", "migrate", "up", check=False)
    assert up.returncode == 78 and "newer" in up.stderr, (up.stdout, up.stderr)
    after = sesame.cli_json("admin", "migrate", "status")
    assert after["unknown"] == ["9999_from_a_newer_sesame"] and after["database_version"] == known + 1


def test_no_migrate_leaves_migrating_to_its_own_step(sesame_factory, tmp_path):
    """`serve --no-migrate` refuses a schema that is not yet this version's and says to run
    `sesame admin migrate up`, which applies every migration; then `--no-migrate` starts."""
    data = tmp_path / "upgraded"
    refused = run_sesame("serve", "--port", "0", "--data-dir", str(data), "--no-migrate")
    assert refused.returncode == 78, (refused.stdout, refused.stderr)
    assert "sesame admin migrate up" in refused.stderr and "version 0" in refused.stderr, refused.stderr
    status = json.loads(run_sesame("admin", "migrate", "status", "--json", "--data-dir", str(data)).stdout)
    assert status["database_version"] == 0 and status["applied"] == []
    assert len(status["pending"]) == status["binary_version"] and status["pending"][0] == "0001_initial"
    up = run_sesame("admin", "migrate", "up", "--data-dir", str(data))
    assert up.returncode == 0 and "applied 0001_initial" in up.stdout, (up.stdout, up.stderr)
    assert f"schema version {status['binary_version']}" in up.stdout
    again = run_sesame("admin", "migrate", "up", "--data-dir", str(data))
    assert again.returncode == 0 and "applied" not in again.stdout
    server = sesame_factory(args=("--no-migrate",), name="upgraded")
    assert requests.get(server.url("/health/ready"), timeout=10).json()["status"] == "ok"
