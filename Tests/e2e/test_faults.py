"""Faults under sustained load: the database restarts, an instance dies with `kill -9`.

Load: workers sign people in without pause (start a code over real SMTP, read it from the
sink, exchange it on another instance, keep the refresh token). While they run, the fault
happens. Afterwards every acknowledged step must still hold: each code whose start was
answered 200 still signs in (unless its own exchange may have used it), and each refresh
token handed out still rotates. During the fault, answers are 503 `temporarily_unavailable`
within the database deadline, never another 5xx and never a hang.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from flows import (OTP_GRANT, POSTGRES_CONTROL, SHARED_ISSUER, code_in_mail, exchange_code, refresh, requires_postgres,
                   requires_postgres_control)

WORKERS = 8
DEADLINE = 2  # SESAME_DATABASE_TIMEOUT for these servers
# A request does a few storage steps, each with its own deadline; anything slower is a hang.
SLOWEST_FAILURE = 3 * DEADLINE + 1


class Mailbox:
    """The codes the SMTP sink received, by recipient, read as the sink appends them."""

    def __init__(self, path: Path):
        self.path = path
        self.codes: dict = {}
        self.read_up_to = 0  # bytes of the sink's file already read
        self.lock = threading.Lock()

    def code(self, recipient: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if recipient not in self.codes:
                    self._read_new_mail()
                if recipient in self.codes:
                    return self.codes[recipient]
            time.sleep(0.05)
        raise AssertionError(f"no mail for {recipient}")

    def _read_new_mail(self) -> None:
        if not self.path.exists():
            return
        with self.path.open("rb") as file:
            file.seek(self.read_up_to)
            data = file.read()
        complete = data[:data.rfind(b"\n") + 1]  # a line still being written waits for the next read
        self.read_up_to += len(complete)
        for line in complete.decode().splitlines():
            if line.strip():
                mail = json.loads(line)
                self.codes[mail["rcpt_tos"][0]] = code_in_mail(mail)


@dataclass
class Outcome:
    """What the load saw: acknowledged work to check afterwards, and every refusal."""

    unexchanged: list = field(default_factory=list)  # started (200), never exchanged
    unmailed: list = field(default_factory=list)  # started (200) around the fault, mail not seen yet
    ambiguous: list = field(default_factory=list)  # started (200), exchange answered 5xx: may have used the code
    refresh_tokens: list = field(default_factory=list)  # handed out (200)
    failures: list = field(default_factory=list)  # (status, body, seconds)
    unreachable: int = 0  # connections refused by a dead instance
    logins: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, value) -> None:
        with self.lock:
            getattr(self, name).append(value)


def post(server, path: str, body: dict, outcome: Outcome, dead: threading.Event):
    started = time.monotonic()
    try:
        response = requests.post(server.url(path), json=body, timeout=30)
    except requests.ConnectionError:
        # Only a killed instance may refuse connections; a live one must answer.
        # (The socket closes a moment before the process is gone, hence the wait.)
        assert dead.is_set(), f"{server.url(path)} refused a connection before any fault"
        try:
            server.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{server.url(path)}, still running, refused a connection") from None
        with outcome.lock:
            outcome.unreachable += 1
        return None
    if response.status_code != 200:
        outcome.add("failures", (response.status_code, response.text, time.monotonic() - started))
    return response


def complete(response, dead: threading.Event) -> bool:
    """False for a body cut short by an instance that died while sending it (not acknowledged)."""
    try:
        response.json()
        return True
    except ValueError:
        assert dead.is_set(), f"a live instance sent a broken body: {response.text!r}"
        return False


def login_loop(worker: int, servers, mailbox: Mailbox, outcome: Outcome, stop: threading.Event, dead: threading.Event):
    for n in range(1_000_000):
        if stop.is_set():
            return
        email = f"w{worker}-{n}@example.com"
        live = [s for s in servers if s.process.poll() is None] or servers
        first, second = live[n % len(live)], live[(n + 1) % len(live)]
        started = post(first, "/passwordless/start", {
            "client_id": first.client_id, "connection": "email", "email": email, "send": "code"}, outcome, dead)
        if started is None or started.status_code != 200:
            continue
        try:
            code = mailbox.code(email)
        except AssertionError:
            # Acknowledged just before the fault: the outbox holds the message, and it goes
            # out once an instance claims it (a dead worker's lease runs out after 15 s).
            assert dead.is_set(), f"no mail for {email} before any fault"
            outcome.add("unmailed", email)
            continue
        if n % 3 == 2:  # some codes stay unused, to be redeemed after the fault
            outcome.add("unexchanged", (email, code))
            continue
        tokens = post(second, "/oauth/token", {
            "grant_type": OTP_GRANT, "client_id": second.client_id, "realm": "email", "username": email,
            "otp": code, "scope": "openid offline_access"}, outcome, dead)
        if tokens is None or (tokens.status_code == 200 and not complete(tokens, dead)):
            outcome.add("ambiguous", (email, code))
        elif tokens.status_code == 200:
            outcome.add("refresh_tokens", tokens.json()["refresh_token"])
            with outcome.lock:
                outcome.logins += 1
        elif tokens.status_code >= 500:
            outcome.add("ambiguous", (email, code))
        else:
            raise AssertionError(f"exchange of a fresh code refused: {tokens.status_code} {tokens.text}")


def under_load(servers, mailbox: Mailbox, fault, before: float = 2.0, after: float = 3.0) -> Outcome:
    """Runs the load, calls ``fault()`` after ``before`` seconds, keeps going ``after`` more."""
    outcome, stop, dead = Outcome(), threading.Event(), threading.Event()
    errors: list = []

    def run(worker: int):
        try:
            login_loop(worker, servers, mailbox, outcome, stop, dead)
        except BaseException as error:  # surfaced below; a thread's exception would be lost
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(WORKERS)]
    for thread in threads:
        thread.start()
    time.sleep(before)
    dead.set()
    fault()
    time.sleep(after)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors[0]
    print(f"load: {outcome.logins} logins, {len(outcome.unexchanged)} codes kept, {len(outcome.unmailed)} mailed late, "
          f"{len(outcome.ambiguous)} ambiguous, "
          f"{len(outcome.failures)} refusals, {outcome.unreachable} unreachable")
    return outcome


def assert_failures_were_fast_503s(outcome: Outcome):
    statuses = Counter(status for status, _, _ in outcome.failures)
    assert set(statuses) <= {503}, outcome.failures[:5]
    for _, body, seconds in outcome.failures:
        assert json.loads(body)["error"] == "temporarily_unavailable"
        assert seconds < SLOWEST_FAILURE, f"a refusal took {seconds:.1f} s"


def exchange_after_lease(server, email: str, code: str):
    """Exchanges a code whose first exchange was cut off by the fault. That exchange may have
    consumed the code and still hold it: the server then answers 503 "try again shortly" until
    the consumer's lease (10 s) runs out, and a retry after it signs the person in."""
    deadline = time.monotonic() + 20
    while True:
        response = exchange_code(server, email, code, timeout=30)
        if response.status_code != 503 or time.monotonic() > deadline:
            return response
        assert response.json()["error"] == "temporarily_unavailable", response.text
        time.sleep(1)


def assert_nothing_acknowledged_was_lost(server, outcome: Outcome, mailbox: Mailbox):
    assert outcome.logins > 0, "the load signed nobody in"

    for email in outcome.unmailed:
        code = mailbox.code(email, timeout=45)
        assert exchange_code(server, email, code, timeout=30).status_code == 200, \
            f"the code mailed after the fault to {email} does not sign in"

    for email, code in outcome.unexchanged:
        assert exchange_code(server, email, code, timeout=30).status_code == 200, \
            f"the acknowledged code for {email} was lost"
    for email, code in outcome.ambiguous:
        assert exchange_after_lease(server, email, code).status_code in (200, 403)
    for token in outcome.refresh_tokens:
        response = refresh(server, token, timeout=30)
        assert response.status_code == 200, f"an acknowledged refresh token was lost: {response.text}"


@pytest.fixture
def mail(helper, tmp_path):
    path = tmp_path / "mail.jsonl"
    port = helper("smtp_sink.py", "--out", str(path))
    env = {"SESAME_EMAIL_PROVIDER": "smtp", "SESAME_EMAIL_SMTP_HOST": "127.0.0.1",
           "SESAME_EMAIL_SMTP_PORT": str(port), "SESAME_EMAIL_SMTP_SECURITY": "none",
           "SESAME_RATE_LIMIT_START_PER_IP": "100000000", "SESAME_ISSUER": SHARED_ISSUER}
    return Mailbox(path), env


def kill_9(server):
    os.kill(server.process.pid, signal.SIGKILL)
    server.process.wait(timeout=10)


@requires_postgres
@requires_postgres_control
def test_a_database_restart_under_load_fails_fast_and_loses_nothing(sesame_factory, database_url, mail):
    mailbox, env = mail
    env = {**env, "SESAME_DATABASE_URL": database_url, "SESAME_DATABASE_TIMEOUT": str(DEADLINE)}
    servers = [sesame_factory(env=env, name="a"), sesame_factory(env=env, name="b")]

    def restart():
        subprocess.run(["bash", POSTGRES_CONTROL, "pause"], check=True, capture_output=True)
        time.sleep(2)
        subprocess.run(["bash", POSTGRES_CONTROL, "resume"], check=True, capture_output=True)

    outcome = under_load(servers, mailbox, restart, after=4.0)
    assert outcome.failures, "the restart went unnoticed: was the database really down?"
    assert_failures_were_fast_503s(outcome)
    assert all(server.process.poll() is None for server in servers)
    assert_nothing_acknowledged_was_lost(servers[1], outcome, mailbox)


@requires_postgres
def test_kill_9_of_one_instance_under_load_loses_nothing(sesame_factory, database_url, mail):
    mailbox, env = mail
    env = {**env, "SESAME_DATABASE_URL": database_url, "SESAME_DATABASE_TIMEOUT": str(DEADLINE)}
    a, b = sesame_factory(env=env, name="a"), sesame_factory(env=env, name="b")
    outcome = under_load([a, b], mailbox, lambda: kill_9(b))
    assert not outcome.failures, outcome.failures[:5]
    assert_nothing_acknowledged_was_lost(a, outcome, mailbox)
    # What the dead instance acknowledged is in the database; a replacement serves at once.
    replacement = sesame_factory(env=env, name="b2")
    assert replacement.client_id == a.client_id


def test_kill_9_on_sqlite_under_load_loses_nothing(sesame_factory, mail):
    """One instance on SQLite: whatever it acknowledged before dying is there after a restart
    on the same data directory (WAL, committed before the answer)."""
    mailbox, env = mail
    server = sesame_factory(env=env, name="solo")
    outcome = under_load([server], mailbox, lambda: kill_9(server), after=0.5)
    assert not outcome.failures, outcome.failures[:5]
    restarted = sesame_factory(env=env, name="solo")
    assert_nothing_acknowledged_was_lost(restarted, outcome, mailbox)


@requires_postgres
@requires_postgres_control
def test_a_database_outage_during_the_cors_check_answers_503_in_the_error_shape(sesame_factory, database_url):
    """The CORS check reads the applications; with the database away it fails. The error
    middleware sits outside CORS, so that failure is a 503 in Auth0's error shape, not an
    empty 500 a browser app cannot interpret."""
    server = sesame_factory(env={"SESAME_DATABASE_URL": database_url, "SESAME_DATABASE_TIMEOUT": "2"}, name="cors")
    subprocess.run(["bash", POSTGRES_CONTROL, "pause"], check=True, capture_output=True)
    try:
        time.sleep(1.5)  # past the one-second read cache of the applications
        response = requests.post(
            server.url("/oauth/token"), json={"grant_type": "refresh_token", "client_id": "x", "refresh_token": "y"},
            headers={"Origin": "https://app.example.com"}, timeout=15)
    finally:
        subprocess.run(["bash", POSTGRES_CONTROL, "resume"], check=True, capture_output=True)
    assert response.status_code == 503, response.text
    assert response.json()["error"] == "temporarily_unavailable"
