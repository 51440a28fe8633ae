"""`sesame serve` delivering through real transports: email to a real SMTP server
(aiosmtpd, smtp_sink.py) and texts to a local endpoint that speaks Twilio's Messages API
(twilio_mock.py). Each code read from what the transport received must finish a login."""

from __future__ import annotations

import email
import email.policy
import json
import re
import time

import requests

from flows import code_in_mail, code_in_text, read_jsonl, start_code, tokens_for_code

ACCOUNT_SID = "AC" + "1" * 32
AUTH_TOKEN = "twilio-test-token"


def smtp_env(port: int) -> dict:
    return {"SESAME_EMAIL_PROVIDER": "smtp", "SESAME_EMAIL_SMTP_HOST": "127.0.0.1",
            "SESAME_EMAIL_SMTP_PORT": str(port), "SESAME_EMAIL_SMTP_SECURITY": "none",
            "SESAME_EMAIL_SMTP_FROM": "Example Login <login@example.com>"}


def twilio_env(port: int) -> dict:
    return {"SESAME_SMS_PROVIDER": "twilio", "SESAME_SMS_TWILIO_ACCOUNT_SID": ACCOUNT_SID,
            "SESAME_SMS_TWILIO_AUTH_TOKEN": AUTH_TOKEN, "SESAME_SMS_TWILIO_FROM": "+15005550006",
            "SESAME_SMS_TWILIO_BASE_URL": f"http://127.0.0.1:{port}"}


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

def start_with_language(server, recipient: str, connection: str = "email", **headers) -> None:
    field = "phone_number" if connection == "sms" else "email"
    response = requests.post(server.url("/passwordless/start"), headers=headers, json={
        "client_id": server.client_id, "connection": connection, field: recipient, "send": "code"}, timeout=10)
    assert response.status_code == 200, response.text


def parsed(mail: dict) -> email.message.EmailMessage:
    return email.message_from_bytes(mail["data"].encode("utf-8"), policy=email.policy.default)


def test_email_is_text_and_html_in_the_language_the_request_asks_for(sesame_factory, helper, tmp_path):
    """Each mail is multipart/alternative with a text and an HTML part carrying the same code,
    in the language of `x-request-language`, else `Accept-Language`, else English; the code
    from either part signs in."""
    mail_log = tmp_path / "mail.jsonl"
    smtp_port = helper("smtp_sink.py", "--out", str(mail_log))
    sesame = sesame_factory(env=smtp_env(smtp_port))
    start_with_language(sesame, "ana@example.com", **{"x-request-language": "fr", "accept-language": "de"})
    start_with_language(sesame, "bo@example.com", **{"accept-language": "es-MX,es;q=0.9,en;q=0.5"})
    start_with_language(sesame, "cy@example.com", **{"accept-language": "sv"})  # none shipped
    start_with_language(sesame, "dee@example.com", **{"accept-language": "ar"})
    start_with_language(sesame, "eri@example.com", **{"x-request-language": "ja"})
    mails = {mail["rcpt_tos"][0]: parsed(mail) for mail in read_jsonl(mail_log, 5)}

    expected = {"ana@example.com": ("fr", "vous connecter"), "bo@example.com": ("es", "correo"),
                "cy@example.com": ("en", "email"), "dee@example.com": ("ar", "رمز التحقق"),
                "eri@example.com": ("ja", "確認コード")}
    for address, (language, word) in expected.items():
        message = mails[address]
        assert message.get_content_type() == "multipart/alternative"
        text = message.get_body(("plain",)).get_content()
        html = message.get_body(("html",)).get_content()
        code = code_in_text(text)
        assert code in html and code in str(message["subject"]), message["subject"]
        assert f'lang="{language}"' in html, html[:300]
        assert f'dir="{"rtl" if language == "ar" else "ltr"}"' in html, html[:300]
        assert word in (text + html).lower(), (address, text)
        assert "<script" not in html.lower()
        assert tokens_for_code(sesame, address, code)["id_token"]


def test_operator_templates_apply_and_a_broken_one_is_refused_with_its_position(sesame_factory, helper, tmp_path):
    """`sesame admin templates set` replaces the French subject for the email connection, and
    Auth0's SMS placeholder @@password@@ works in a text template; a template with a
    syntax error is refused with its line and column and changes nothing."""
    mail_log, sms_log = tmp_path / "mail.jsonl", tmp_path / "twilio.jsonl"
    smtp_port = helper("smtp_sink.py", "--out", str(mail_log))
    twilio_port = helper("twilio_mock.py", "--log", str(sms_log), "--account-sid", ACCOUNT_SID,
                         "--auth-token", AUTH_TOKEN)
    sesame = sesame_factory(env={**smtp_env(smtp_port), **twilio_env(twilio_port)})
    subject = tmp_path / "subject.mustache"
    subject.write_text("Votre code {{application.name}} : {{code}}")
    sesame.cli("admin", "templates", "set", "email-code.subject", "--language", "fr", "--connection", "email",
               "--file", str(subject))
    sms = tmp_path / "sms.mustache"
    sms.write_text("Code @@password@@ pour {{application.name}}")
    sesame.cli("admin", "templates", "set", "sms-code.text", "--language", "fr", "--file", str(sms))
    broken = tmp_path / "broken.mustache"
    broken.write_text("Hello\n{{#code}}unclosed")
    refused = sesame.cli("admin", "templates", "set", "email-code.subject", "--language", "fr", "--file",
                         str(broken), check=False)
    assert refused.returncode == 1 and "line 2" in refused.stderr and "column" in refused.stderr, refused.stderr
    time.sleep(2.5)  # the overrides are read fresh every 2 s

    start_with_language(sesame, "ana@example.com", **{"x-request-language": "fr"})
    [mail] = read_jsonl(mail_log, 1)
    message = parsed(mail)
    code = code_in_text(message.get_body(("plain",)).get_content())
    assert str(message["subject"]).startswith("Votre code ") and str(message["subject"]).endswith(f": {code}")
    start_with_language(sesame, "+14155550123", connection="sms", **{"x-request-language": "fr"})
    [record] = read_jsonl(sms_log, 1)
    body = record["form"]["Body"] if "form" in record else json.dumps(record)
    assert re.search(r"Code \d{6} pour ", body), record
    preview = sesame.cli_json("admin", "templates", "render", "email-code", "--language", "fr", "--connection",
                              "email")
    assert preview["email-code.subject"] == "Votre code Example App : 123456"
