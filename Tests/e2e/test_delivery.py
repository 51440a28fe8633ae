"""`sesame serve` delivering through real transports: email to a real SMTP server
(aiosmtpd, smtp_sink.py) and texts to a local endpoint that speaks Twilio's Messages API
(twilio_mock.py). Each code read from what the transport received must finish a login."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

HERE = Path(__file__).resolve().parent
OTP_GRANT = "http://auth0.com/oauth/grant-type/passwordless/otp"
ACCOUNT_SID = "AC" + "1" * 32
AUTH_TOKEN = "twilio-test-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"helper exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"nothing listening on {port}")


def mail_code(mail: dict) -> str:
    """The six-digit code in a mail the SMTP sink received."""
    return re.search(r"\b(\d{6})\b", mail["data"]).group(1)


def read_jsonl(path: Path, count: int) -> list:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lines = [line for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
        if len(lines) >= count:
            return [json.loads(line) for line in lines]
        time.sleep(0.1)
    pytest.fail(f"{path.name}: expected {count} records")


@pytest.fixture
def helper(tmp_path):
    processes = []

    def start(script: str, *args: str) -> int:
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, str(HERE / script), "--port", str(port), *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        processes.append(process)
        wait_for_port(port, process)
        return port

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


def login(sesame, realm: str, username: str, code: str) -> dict:
    response = requests.post(sesame.url("/oauth/token"), json={
        "grant_type": OTP_GRANT, "client_id": sesame.client_id, "realm": realm,
        "username": username, "otp": code, "scope": "openid"}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def test_email_code_goes_through_smtp_and_signs_in(sesame_factory, helper, tmp_path):
    mail_log = tmp_path / "mail.jsonl"
    smtp_port = helper("smtp_sink.py", "--out", str(mail_log))
    sesame = sesame_factory(env={
        "SESAME_EMAIL_PROVIDER": "smtp", "SESAME_EMAIL_SMTP_HOST": "127.0.0.1",
        "SESAME_EMAIL_SMTP_PORT": str(smtp_port), "SESAME_EMAIL_SMTP_SECURITY": "none",
        "SESAME_EMAIL_SMTP_FROM": "Example Login <login@example.com>"})
    response = requests.post(sesame.url("/passwordless/start"), json={
        "client_id": sesame.client_id, "connection": "email", "email": "ana@example.com", "send": "code"}, timeout=10)
    assert response.status_code == 200, response.text

    [mail] = read_jsonl(mail_log, 1)
    assert mail["mail_from"] == "login@example.com"
    assert mail["rcpt_tos"] == ["ana@example.com"]
    assert "From: \"Example Login\" <login@example.com>" in mail["data"]
    code = mail_code(mail)
    assert login(sesame, "email", "ana@example.com", code)["id_token"]
    # SMTP took the message, so the console outbox stays empty.
    assert sesame.outbox() == []


def test_sms_code_goes_through_twilio_and_signs_in(sesame_factory, helper, tmp_path):
    sms_log = tmp_path / "twilio.jsonl"
    twilio_port = helper("twilio_mock.py", "--log", str(sms_log),
                         "--account-sid", ACCOUNT_SID, "--auth-token", AUTH_TOKEN)
    sesame = sesame_factory(env={
        "SESAME_SMS_PROVIDER": "twilio", "SESAME_SMS_TWILIO_ACCOUNT_SID": ACCOUNT_SID,
        "SESAME_SMS_TWILIO_AUTH_TOKEN": AUTH_TOKEN, "SESAME_SMS_TWILIO_FROM": "+15005550006",
        "SESAME_SMS_TWILIO_BASE_URL": f"http://127.0.0.1:{twilio_port}"})
    response = requests.post(sesame.url("/passwordless/start"), json={
        "client_id": sesame.client_id, "connection": "sms", "phone_number": "+14155550123"}, timeout=10)
    assert response.status_code == 200, response.text

    [record] = read_jsonl(sms_log, 1)
    assert record["status"] == 201
    code = re.search(r"\b(\d{6})\b", json.dumps(record)).group(1)
    assert login(sesame, "sms", "+14155550123", code)["id_token"]


def test_twilio_refusal_is_a_clear_4xx_not_a_crash(sesame_factory, helper, tmp_path):
    """A wrong auth token at Twilio must surface as Auth0's sms_provider_error, not a 5xx."""
    sms_log = tmp_path / "twilio.jsonl"
    twilio_port = helper("twilio_mock.py", "--log", str(sms_log),
                         "--account-sid", ACCOUNT_SID, "--auth-token", "the-real-token")
    sesame = sesame_factory(env={
        "SESAME_SMS_PROVIDER": "twilio", "SESAME_SMS_TWILIO_ACCOUNT_SID": ACCOUNT_SID,
        "SESAME_SMS_TWILIO_AUTH_TOKEN": "a-wrong-token", "SESAME_SMS_TWILIO_FROM": "+15005550006",
        "SESAME_SMS_TWILIO_BASE_URL": f"http://127.0.0.1:{twilio_port}"})
    response = requests.post(sesame.url("/passwordless/start"), json={
        "client_id": sesame.client_id, "connection": "sms", "phone_number": "+14155550123"}, timeout=10)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "sms_provider_error"
    assert response.json()["error_description"]
