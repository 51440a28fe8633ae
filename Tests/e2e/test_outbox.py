"""The durable outbox: `/passwordless/start` stores the message with its code and answers at
once; a delivery worker in every `sesame serve` sends it, retries transient failures with
backoff until the code expires, and survives crashes and a second instance.

Real processes on 127.0.0.1: `sesame serve`, the SMTP sink (smtp_sink.py, aiosmtpd) and,
for two instances, PostgreSQL. What each mail carries must finish a sign-in.
"""

from __future__ import annotations

import math
import os
import random
import re
import signal
import statistics
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import pytest
import requests

from conftest import free_port
from flows import SHARED_ISSUER, code_in_mail, read_jsonl, requires_postgres, start_code, tokens_for_code


def smtp_env(port: int, **extra) -> dict:
    """A server that sends email to the SMTP sink (or nothing) on 127.0.0.1:``port``."""
    return {"SESAME_EMAIL_PROVIDER": "smtp", "SESAME_EMAIL_SMTP_HOST": "127.0.0.1",
            "SESAME_EMAIL_SMTP_PORT": str(port), "SESAME_EMAIL_SMTP_SECURITY": "none", **extra}


def mails_to(path: Path, recipient: str) -> list:
    """Every mail the sink wrote to ``path`` for ``recipient``, oldest first."""
    if not path.exists():
        return []
    return [mail for mail in read_jsonl(path, 0) if mail["rcpt_tos"] == [recipient]]


def wait_for_mail(path: Path, recipient: str, timeout: float) -> dict:
    """The first mail for ``recipient``, once the sink has it; fails after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not (mails := mails_to(path, recipient)):
        assert time.monotonic() < deadline, f"no mail for {recipient} within {timeout} s"
        time.sleep(0.1)
    return mails[0]


def delivery_to(server, recipient: str) -> dict:
    """The one delivery queued for ``recipient`` (`sesame admin deliveries list --to`)."""
    [delivery] = server.deliveries("--to", recipient)
    return delivery


def wait_for_delivery(server, recipient: str, condition, timeout: float = 10) -> dict:
    """The delivery for ``recipient`` once ``condition(delivery)`` holds."""
    deadline = time.monotonic() + timeout
    while not condition(delivery := delivery_to(server, recipient)):
        assert time.monotonic() < deadline, f"delivery never reached the expected state: {delivery}"
        time.sleep(0.05)
    return delivery


def kill_9(server) -> None:
    """Kills the server with no chance to finish anything, and waits until it is gone."""
    os.kill(server.process.pid, signal.SIGKILL)
    server.process.wait(timeout=10)


def started(server, email: str) -> requests.Response:
    """``start_code`` that must be answered 200."""
    response = start_code(server, email)
    assert response.status_code == 200, response.text
    return response


# -- 1. a provider outage ------------------------------------------------------------------

@pytest.mark.waits_beside_the_rest
def test_a_mail_server_down_for_a_minute_gets_the_code_once_it_is_back(sesame_factory, helper, tmp_path):
    """SMTP is down (nothing listens on its port) when the code is asked for: the start still
    answers 200 at once, without naming the mail server; the delivery stays pending with the
    error for the operator, retried with backoff capped at SESAME_DELIVERY_MAX_RETRY_DELAY
    (5 s: at least 8 tries in a minute, where uncapped doubling would make at most 6, and no
    tight loop); a minute later the mail server comes up on that port, and the mail arrives
    within 15 s (the cap, a poll of the queue, slack), exactly once, and its code signs in."""
    port = free_port()
    server = sesame_factory(env=smtp_env(port, SESAME_DELIVERY_MAX_RETRY_DELAY="5"))
    email = "outage@example.com"
    begun = time.monotonic()
    response = started(server, email)
    assert time.monotonic() - begun < 2, "the start waited for the mail server"
    answer = response.text + repr(response.headers)
    assert "127.0.0.1" not in answer and f":{port}" not in answer and "smtp" not in answer.lower(), answer
    assert not re.search(rf"\b{port}\b", response.text), response.text

    failing = wait_for_delivery(server, email, lambda d: d["attempts"] >= 1 and d.get("last_error"))
    assert failing["status"] == "pending", failing
    assert str(port) in failing["last_error"], "the operator is told which server failed"

    time.sleep(max(0.0, begun + 60 - time.monotonic()))
    outage = delivery_to(server, email)
    assert outage["status"] == "pending", outage
    assert 8 <= outage["attempts"] <= 30, f"backoff capped at 5 s means 8 to 30 tries in a minute: {outage}"

    mail_log = tmp_path / "mail.jsonl"
    helper("smtp_sink.py", "--out", str(mail_log), port=port)
    back = time.monotonic()
    mail = wait_for_mail(mail_log, email, timeout=15)
    print(f"mail arrived {time.monotonic() - back:.1f} s after the mail server came back, "
          f"after {outage['attempts']} failed tries")
    assert tokens_for_code(server, email, code_in_mail(mail))["id_token"]
    time.sleep(3)
    assert len(mails_to(mail_log, email)) == 1, "sent more than once"
    sent = delivery_to(server, email)
    assert sent["status"] == "sent" and sent.get("last_error") is None, sent


# -- 2, 3. crashes -------------------------------------------------------------------------

def seconds_left(delivery: dict) -> float:
    """Seconds until the delivery's deadline (its code's expiry)."""
    return (datetime.fromisoformat(delivery["deadline"]) - datetime.now(timezone.utc)).total_seconds()


@pytest.mark.waits_beside_the_rest
def test_a_code_acknowledged_just_before_kill_9_is_mailed_after_the_restart(sesame_factory, helper, tmp_path):
    """A start answered 200 is durable: the server dies (`kill -9`) the moment the answer
    arrives, with the mail server up, and whatever the worker was doing then (nothing yet,
    sending, or done), the code reaches the mailbox at least once before it expires once
    the server restarts on the same data directory (SQLite), and it signs in there.

    Killed mid-send, the dead worker's claim holds the message until its lease (15 s) runs
    out; the restarted server sends it then."""
    mail_log = tmp_path / "mail.jsonl"
    env = smtp_env(helper("smtp_sink.py", "--out", str(mail_log)))
    server = sesame_factory(env=env, name="solo")
    email = "crash@example.com"
    started(server, email)
    kill_9(server)
    at_kill = delivery_to(server, email)
    print(f"at the kill: {at_kill['status']}, {at_kill['attempts']} attempts, "
          f"{len(mails_to(mail_log, email))} mails")

    restarted = sesame_factory(env=env, name="solo")
    mail = wait_for_mail(mail_log, email, timeout=seconds_left(at_kill))
    assert tokens_for_code(restarted, email, code_in_mail(mail))["id_token"]


@pytest.mark.waits_beside_the_rest
def test_a_code_waiting_for_a_retry_is_mailed_by_the_restarted_server(sesame_factory, helper, tmp_path):
    """The mail server is down when the code is asked for; the server dies (`kill -9`) right
    after the first failed try, while the message waits for its retry. Restarted on the same
    data directory (SQLite) with the mail server back on its port, the server sends the
    message at its retry time, once, and the code signs in."""
    port = free_port()
    env = smtp_env(port, SESAME_DELIVERY_RETRY_DELAY="6")  # the retry comes 3 to 6 s after the failure
    server = sesame_factory(env=env, name="solo")
    email = "down-then-crash@example.com"
    started(server, email)
    wait_for_delivery(server, email, lambda d: d.get("last_error"))
    kill_9(server)
    at_kill = delivery_to(server, email)
    assert at_kill["status"] == "pending" and at_kill["attempts"] == 1, at_kill

    mail_log = tmp_path / "mail.jsonl"
    helper("smtp_sink.py", "--out", str(mail_log), port=port)
    restarted = sesame_factory(env=env, name="solo")
    mail = wait_for_mail(mail_log, email, timeout=15)
    assert tokens_for_code(restarted, email, code_in_mail(mail))["id_token"]
    time.sleep(2)
    assert len(mails_to(mail_log, email)) == 1, "sent more than once"


# -- 4. two instances ----------------------------------------------------------------------

@requires_postgres
def test_two_instances_on_one_database_send_each_message_exactly_once(sesame_factory, database_url, helper,
                                                                      tmp_path):
    """Two instances on one PostgreSQL database, each with its own delivery worker, claiming
    from the same outbox (SKIP LOCKED leases): 40 starts for 40 addresses, alternating
    instances and concurrent, give every address exactly one mail (none lost, none sent by
    both workers), every code signs in on the other instance, and the outbox lists 40 sent."""
    mail_log = tmp_path / "mail.jsonl"
    env = smtp_env(helper("smtp_sink.py", "--out", str(mail_log)),
                   SESAME_DATABASE_URL=database_url, SESAME_ISSUER=SHARED_ISSUER)
    servers = [sesame_factory(env=env, name="a"), sesame_factory(env=env, name="b")]
    emails = [f"user{n}@example.com" for n in range(40)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda n: started(servers[n % 2], emails[n]), range(40)))

    read_jsonl(mail_log, 40, timeout=30)
    time.sleep(3)  # a duplicate would come now
    received = Counter(mail["rcpt_tos"][0] for mail in read_jsonl(mail_log, 40))
    assert received == Counter(emails), f"not one mail per address: {received - Counter(emails)}"
    for n, email in enumerate(emails):
        tokens_for_code(servers[(n + 1) % 2], email, code_in_mail(mails_to(mail_log, email)[0]))
    sent = servers[0].deliveries("--status", "sent", "--limit", "100")
    assert sorted(d["recipient"] for d in sent) == sorted(emails)
    assert servers[1].deliveries("--status", "pending") == []


# -- 5. timing -----------------------------------------------------------------------------

def ks_test(a: list, b: list) -> tuple:
    """Two-sample Kolmogorov–Smirnov test: the statistic D (the largest gap between the two
    empirical distribution functions) and its asymptotic p-value (Numerical Recipes' form of
    the Kolmogorov distribution, with Stephens' small-sample correction)."""
    a, b = sorted(a), sorted(b)
    d = max(abs(sum(x <= v for x in a) / len(a) - sum(x <= v for x in b) / len(b)) for v in a + b)
    n = math.sqrt(len(a) * len(b) / (len(a) + len(b)))
    lam = (n + 0.12 + 0.11 / n) * d
    if lam < 0.2:
        return d, 1.0
    p = 2 * sum((-1) ** (j - 1) * math.exp(-2 * j * j * lam * lam) for j in range(1, 101))
    return d, min(1.0, max(0.0, p))


def sign_in_by_mail(server, mail_log: Path, email: str) -> None:
    """Signs ``email`` in with the code the SMTP sink received (which makes the user)."""
    started(server, email)
    tokens_for_code(server, email, code_in_mail(wait_for_mail(mail_log, email, timeout=10)))


def user_id(server, email: str) -> str:
    [user] = [u for u in server.cli_json("admin", "users", "list") if u.get("email") == email]
    return user["user_id"]


def timed_start(server, session: requests.Session, email: str) -> float:
    """Seconds the server took to answer a start for ``email`` (which must succeed, in the
    same shape whoever the recipient is)."""
    body = {"client_id": server.client_id, "connection": "email", "email": email, "send": "code"}
    begun = time.perf_counter()
    response = session.post(server.url("/passwordless/start"), json=body, timeout=10)
    elapsed = time.perf_counter() - begun
    assert response.status_code == 200, response.text
    assert set(response.json()) == {"_id", "email", "email_verified"} and not response.json()["email_verified"]
    return elapsed


def test_a_start_takes_as_long_for_known_unknown_and_blocked_addresses(sesame_factory, helper, tmp_path):
    """Defends against account enumeration by timing: an attacker who asks for codes and times
    the answers must not learn whether an address has an account, or a blocked one. With a
    real SMTP server configured, 50 starts each for a known, an unknown and a blocked address
    (interleaved in a shuffled order every round, after a discarded warm-up, so that drift and
    the previous start's background send fall on all three alike) are indistinguishable by a
    two-sample Kolmogorov–Smirnov test (p > 0.001) and their medians lie within 15 ms. The
    blocked address's deliveries are suppressed, the others' sent: the work differs, the
    answer and its timing do not."""
    mail_log = tmp_path / "mail.jsonl"
    server = sesame_factory(env=smtp_env(
        helper("smtp_sink.py", "--out", str(mail_log)),
        SESAME_RATE_LIMIT_START_PER_RECIPIENT="1000", SESAME_RATE_LIMIT_START_PER_IP="100000"))
    known, unknown, blocked = "known@example.com", "unknown@example.com", "blocked@example.com"
    sign_in_by_mail(server, mail_log, known)
    sign_in_by_mail(server, mail_log, blocked)
    server.cli("admin", "users", "block", user_id(server, blocked))

    order = random.Random(20260504)
    samples: dict = {known: [], unknown: [], blocked: []}
    with requests.Session() as session:
        for round_ in range(60):
            for email in order.sample(list(samples), 3):
                elapsed = timed_start(server, session, email)
                if round_ >= 10:  # warm-up discarded
                    samples[email].append(elapsed)

    medians = {email: statistics.median(times) * 1000 for email, times in samples.items()}
    print("median ms:", {email: round(ms, 2) for email, ms in medians.items()})
    for first, second in ((known, unknown), (known, blocked), (unknown, blocked)):
        d, p = ks_test(samples[first], samples[second])
        print(f"{first} vs {second}: D={d:.3f} p={p:.4f}")
        assert p > 0.001, f"{first} and {second} are told apart by timing: D={d:.3f} p={p:.5f} medians {medians}"
        assert abs(medians[first] - medians[second]) < 15, medians

    server.wait_for_deliveries(timeout=30)
    statuses = {email: {d["status"] for d in server.deliveries("--to", email, "--limit", "100")}
                for email in samples}
    assert statuses == {known: {"sent"}, unknown: {"sent"}, blocked: {"sent", "suppressed"}}, statuses
