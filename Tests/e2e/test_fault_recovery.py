"""Faults at the worst moment, one at a time, on real processes: the database goes away just
after the mail server accepted a message, SIGTERM arrives while a message is being sent, and
the database stalls after a code exchange consumed its code. No message is sent twice except
across a crash, none is cut off by a graceful stop, and a code typed right is never refused.

The SMTP sink holds each message a few seconds (``--delay``), so a send is in flight when
the fault comes. Seconds each, not minutes.
"""

from __future__ import annotations

import signal
import subprocess
import time
from urllib.parse import urlsplit

from flows import (POSTGRES_CONTROL, code_in_mail, exchange_code, requires_postgres, requires_postgres_control,
                   start_code, tokens_for_code)
from test_outbox import mails_to, smtp_env, wait_for_delivery, wait_for_mail


def claimed(server, email: str) -> dict:
    """The delivery to ``email`` once a worker has claimed it (its send has begun)."""
    return wait_for_delivery(server, email, lambda d: d["attempts"] >= 1)


def postgres(action: str) -> None:
    subprocess.run(["bash", POSTGRES_CONTROL, action], check=True, capture_output=True)


@requires_postgres
@requires_postgres_control
def test_a_database_restart_after_the_mail_server_accepted_sends_the_code_once(sesame_factory, database_url, helper,
                                                                               tmp_path):
    """The database restarts ("terminating connection due to administrator command") while
    the mail server holds a message; it accepts the message while the database is down, so
    the write that records it as sent fails. The worker keeps trying: once the database is
    back the delivery is recorded as sent within seconds (not left to its lease, after which
    another worker would mail the same code again), the mail arrived once, and it signs in."""
    mail_log = tmp_path / "mail.jsonl"
    port = helper("smtp_sink.py", "--out", str(mail_log), "--delay", "3")
    server = sesame_factory(env=smtp_env(port, SESAME_DATABASE_URL=database_url, SESAME_DATABASE_TIMEOUT="2"))
    email = "restart@example.com"
    assert start_code(server, email).status_code == 200
    claimed(server, email)
    postgres("pause")
    try:
        mail = wait_for_mail(mail_log, email, timeout=10)
        time.sleep(1)  # the worker's first tries to record the outcome fail
    finally:
        postgres("resume")
    sent = wait_for_delivery(server, email, lambda d: d["status"] == "sent", timeout=8)
    assert sent["attempts"] == 1, sent
    assert len(mails_to(mail_log, email)) == 1, "sent twice"
    assert tokens_for_code(server, email, code_in_mail(mail))["id_token"]


def test_sigterm_finishes_the_send_in_flight_and_records_it(sesame_factory, helper, tmp_path):
    """SIGTERM (a rolling restart) while a message is with the mail server: the worker claims
    nothing more, lets the send finish and records it before the process exits, instead of
    cutting it off (the message would go out again, or 15 s late, from another instance)."""
    mail_log = tmp_path / "mail.jsonl"
    port = helper("smtp_sink.py", "--out", str(mail_log), "--delay", "2")
    server = sesame_factory(env=smtp_env(port), name="solo")
    email = "rolling@example.com"
    assert start_code(server, email).status_code == 200
    claimed(server, email)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=20) == 0, server.logs()
    assert len(mails_to(mail_log, email)) == 1, "the send in flight was cut off"
    [delivery] = server.deliveries("--to", email)
    assert delivery["status"] == "sent", delivery
    restarted = sesame_factory(env=smtp_env(port), name="solo")
    time.sleep(1.5)  # a poll of the restarted worker would find an unrecorded send now
    assert len(mails_to(mail_log, email)) == 1, "sent again after the restart"
    assert tokens_for_code(restarted, email, code_in_mail(mails_to(mail_log, email)[0]))["id_token"]


class TableLock:
    """Holds ``LOCK TABLE … IN EXCLUSIVE MODE`` in a psql session: reads go on, writes wait."""

    def __init__(self, database_url: str, table: str):
        parts = urlsplit(database_url)
        self.process = subprocess.Popen(
            ["psql", "-h", parts.hostname, "-p", str(parts.port), "-U", "postgres", "-d", parts.path.lstrip("/"),
             "-v", "ON_ERROR_STOP=1", "-q"], stdin=subprocess.PIPE, text=True)
        self.process.stdin.write(f"BEGIN; LOCK TABLE {table} IN EXCLUSIVE MODE; SELECT pg_sleep(0);\n")
        self.process.stdin.flush()
        time.sleep(0.5)

    def release(self) -> None:
        self.process.stdin.write("COMMIT;\n")
        self.process.stdin.close()
        self.process.wait(timeout=10)


@requires_postgres
def test_a_code_whose_exchange_answered_503_signs_in_when_retried(sesame_factory, database_url):
    """The database stalls after an exchange consumed its code (that step committed) and before
    the login was recorded: the exchange answers 503 once the database deadline passes, and
    the person never got tokens. The client's retry of the same exchange, seconds later, signs
    the same person in; it is not told that the code they typed right is wrong."""
    server = sesame_factory(env={"SESAME_DATABASE_URL": database_url, "SESAME_DATABASE_TIMEOUT": "2"})
    email = "stalled@example.com"
    assert start_code(server, email).status_code == 200
    code = server.last_code(email)
    lock = TableLock(database_url, "users")  # the login's own write waits; the code's does not
    try:
        stalled = exchange_code(server, email, code, timeout=15)
    finally:
        lock.release()
    assert stalled.status_code == 503, stalled.text
    retried = exchange_code(server, email, code)
    assert retried.status_code == 200, f"a code typed right was refused: {retried.text}"
    assert retried.json()["id_token"]
