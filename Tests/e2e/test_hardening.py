"""Deployment hardening seen from outside a real ``sesame serve``: slow clients, logs."""

from __future__ import annotations

import socket
import time

import pytest
import requests


@pytest.mark.sesame_env(SESAME_HTTP_IDLE_TIMEOUT="2")
def test_slowloris_connection_is_closed(sesame):
    """Attack (slowloris): open many connections and send a request's headers a byte at a
    time, never finishing, until the server has no connections left. A connection without a
    complete request is closed after http_idle_timeout."""
    with socket.create_connection((sesame.host, sesame.port), timeout=10) as conn:
        conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        started = time.monotonic()
        closed_after = None
        while time.monotonic() - started < 8:
            try:
                conn.sendall(b"X")
                conn.settimeout(0.5)
                if conn.recv(1024) == b"":
                    closed_after = time.monotonic() - started
                    break
            except socket.timeout:
                continue
            except OSError:
                closed_after = time.monotonic() - started
                break
        assert closed_after is not None, "the server kept a never-finished request open for 8 s"
        assert closed_after < 6
    # The server still answers others.
    assert requests.get(sesame.url("/health"), timeout=5).status_code == 200


@pytest.mark.sesame_env(SESAME_RATE_LIMIT_START_PER_RECIPIENT="1")
def test_logs_do_not_carry_full_addresses(sesame):
    """Attack (data exposure): info logs listed every address that was refused or limited,
    a ready list of who uses the service. Outside the console outbox's own lines (which are
    the delivery itself, and only on loopback), the log masks them."""
    client_id = [a for a in sesame.apps() if a["default"]][0]["client_id"]
    body = {"client_id": client_id, "connection": "email", "email": "hidden.person@example.com", "send": "code"}
    assert requests.post(sesame.url("/passwordless/start"), json=body, timeout=5).status_code == 200
    assert requests.post(sesame.url("/passwordless/start"), json=body, timeout=5).status_code == 429
    lines = [line for line in sesame.logs().splitlines() if "outbox:" not in line]
    assert any("h***@example.com" in line for line in lines), "the rate-limit line names the masked address"
    assert not any("hidden.person@example.com" in line for line in lines)
