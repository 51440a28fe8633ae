"""`sesame serve` delivering through real transports: email to a real SMTP server
(aiosmtpd, smtp_sink.py) and texts to a local endpoint that speaks Twilio's Messages API
(twilio_mock.py). Each code read from what the transport received must finish a login."""

from __future__ import annotations

import json

from flows import code_in_mail, code_in_text, read_jsonl, start_code, tokens_for_code

ACCOUNT_SID = "AC" + "1" * 32
AUTH_TOKEN = "twilio-test-token"


def test_email_code_goes_through_smtp_and_signs_in(sesame_factory, helper, tmp_path):
    mail_log = tmp_path / "mail.jsonl"
    smtp_port = helper("smtp_sink.py", "--out", str(mail_log))
    sesame = sesame_factory(env={
        "SESAME_EMAIL_PROVIDER": "smtp", "SESAME_EMAIL_SMTP_HOST": "127.0.0.1",
        "SESAME_EMAIL_SMTP_PORT": str(smtp_port), "SESAME_EMAIL_SMTP_SECURITY": "none",
        "SESAME_EMAIL_SMTP_FROM": "Example Login <login@example.com>"})
    response = start_code(sesame, "ana@example.com")
    assert response.status_code == 200, response.text

    [mail] = read_jsonl(mail_log, 1)
    assert mail["mail_from"] == "login@example.com"
    assert mail["rcpt_tos"] == ["ana@example.com"]
    assert "From: \"Example Login\" <login@example.com>" in mail["data"]
    code = code_in_mail(mail)
    assert tokens_for_code(sesame, "ana@example.com", code)["id_token"]
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
    response = start_code(sesame, "+14155550123", connection="sms")
    assert response.status_code == 200, response.text

    [record] = read_jsonl(sms_log, 1)
    assert record["status"] == 201
    code = code_in_text(json.dumps(record))
    assert tokens_for_code(sesame, "+14155550123", code, realm="sms")["id_token"]


def test_twilio_refusal_is_recorded_for_operators_never_shown_to_callers(sesame_factory, helper, tmp_path):
    """A wrong auth token at Twilio (HTTP 401, code 20003) is a permanent refusal: the start
    still answers 200 (it does not wait for the provider, and must not tell callers about
    provider accounts), the delivery fails at once without retries, and the operator sees
    Twilio's answer in `sesame admin deliveries list`."""
    sms_log = tmp_path / "twilio.jsonl"
    twilio_port = helper("twilio_mock.py", "--log", str(sms_log),
                         "--account-sid", ACCOUNT_SID, "--auth-token", "the-real-token")
    sesame = sesame_factory(env={
        "SESAME_SMS_PROVIDER": "twilio", "SESAME_SMS_TWILIO_ACCOUNT_SID": ACCOUNT_SID,
        "SESAME_SMS_TWILIO_AUTH_TOKEN": "a-wrong-token", "SESAME_SMS_TWILIO_FROM": "+15005550006",
        "SESAME_SMS_TWILIO_BASE_URL": f"http://127.0.0.1:{twilio_port}"})
    response = start_code(sesame, "+14155550123", connection="sms")
    assert response.status_code == 200, response.text
    assert "20003" not in response.text and "twilio" not in response.text.lower()
    sesame.wait_for_deliveries()
    [delivery] = sesame.deliveries("--to", "+14155550123")
    assert delivery["status"] == "failed" and delivery["attempts"] == 1, delivery
    assert "20003" in delivery["last_error"], delivery
    assert len(read_jsonl(sms_log, 1)) == 1, "one request to Twilio: a 4xx is not retried"