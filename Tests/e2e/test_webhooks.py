"""Webhooks from `sesame serve` to a real HTTP receiver on 127.0.0.1: every event is signed
the Standard Webhooks way and verified here by the `standardwebhooks` library from PyPI (the
reference implementation receivers use), retried through a receiver outage with the same
`webhook-id`, and sent from the durable outbox."""

from __future__ import annotations

import http.server
import json
import threading
import time

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from flows import exchange_code, sign_in, start_code

# The receivers listen on loopback, a private address webhooks may reach only when the operator
# allows it (webhook_allowed_hosts).
ALLOW_LOOPBACK = {"SESAME_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1"}
pytestmark = pytest.mark.sesame_env(**ALLOW_LOOPBACK)

ALL_EVENTS = ["user.created", "user.deleted", "user.blocked", "login.succeeded", "login.failed",
              "passkey.registered", "device_key.registered", "delivery.failed"]


class Receiver:
    """An HTTP endpoint that records every POST (headers and raw body) and answers
    ``failures`` of them with 503 first, as a receiver in the middle of a deploy would."""

    def __init__(self, failures: int = 0) -> None:
        self.calls: list = []
        self.failures = failures
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with receiver.lock:
                    failing = receiver.failures > 0
                    receiver.failures -= 1 if failing else 0
                    receiver.calls.append({"headers": dict(self.headers.items()), "body": body,
                                           "status": 503 if failing else 200})
                self.send_response(503 if failing else 200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def accepted(self, count: int, timeout: float = 20) -> list:
        """The first ``count`` calls answered 200, once they have arrived."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                done = [call for call in self.calls if call["status"] == 200]
            if len(done) >= count:
                return done
            time.sleep(0.05)
        pytest.fail(f"expected {count} accepted webhook calls, got {self.calls}")

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture
def receiver():
    receivers = []

    def make(failures: int = 0) -> Receiver:
        receivers.append(Receiver(failures))
        return receivers[-1]

    yield make
    for made in receivers:
        made.close()


def create_webhook(server, url: str, events: list) -> dict:
    return server.cli_json("admin", "webhooks", "create", "--url", url, "--events", *events)


def verified(secret: str, call: dict) -> dict:
    """The event, verified by the reference library (signature, id and timestamp)."""
    return Webhook(secret).verify(call["body"], call["headers"])


def test_events_arrive_signed_and_verify_with_the_reference_library(sesame, receiver):
    """A signup, a login, a wrong code, a block and a delete each reach the endpoint as a
    Standard Webhooks call that `standardwebhooks` verifies; a body changed in transit (an
    attacker forging or altering an event) does not verify."""
    hooks = receiver()
    endpoint = create_webhook(sesame, hooks.url, ALL_EVENTS)
    assert endpoint["secret"].startswith("whsec_") and endpoint["events"] == ALL_EVENTS
    assert "secret" not in sesame.cli_json("admin", "webhooks", "list")[0], "the secret is shown once"

    tokens = sign_in(sesame, "ana@example.com")
    start_code(sesame, "ana@example.com")
    assert exchange_code(sesame, "ana@example.com", "000000").status_code == 403
    user_id = sesame.cli_json("admin", "users", "list")[0]["user_id"]
    sesame.cli("admin", "users", "block", user_id)
    sesame.cli("admin", "users", "delete", user_id)

    events = [verified(endpoint["secret"], call) for call in hooks.accepted(5)]
    types = [event["type"] for event in events]
    assert sorted(types) == sorted(["user.created", "login.succeeded", "login.failed", "user.blocked",
                                    "user.deleted"]), types
    created = next(event for event in events if event["type"] == "user.created")
    assert created["data"]["user_id"] == user_id and created["data"]["email"] == "ana@example.com"
    assert created["data"]["client_id"] == sesame.client_id and created["timestamp"].endswith("Z")
    assert tokens["id_token"]

    call = hooks.calls[0]
    tampered = call["body"].replace(b'"type":"', b'"type":"x')
    with pytest.raises(WebhookVerificationError):
        Webhook(endpoint["secret"]).verify(tampered, call["headers"])
    with pytest.raises(WebhookVerificationError):
        Webhook(create_webhook(sesame, hooks.url, ["user.created"])["secret"]).verify(call["body"], call["headers"])


@pytest.mark.sesame_env(SESAME_DELIVERY_RETRY_DELAY="1", SESAME_DELIVERY_MAX_RETRY_DELAY="1", **ALLOW_LOOPBACK)
def test_a_receiver_that_fails_gets_the_same_event_again_until_it_takes_it(sesame, receiver):
    """Two 503 answers, then 200: the event is retried from the outbox with the same
    `webhook-id` (so receivers can drop duplicates), a fresh signature each time, and the
    delivery ends `sent` after three attempts."""
    hooks = receiver(failures=2)
    endpoint = create_webhook(sesame, hooks.url, ["user.created"])
    sign_in(sesame, "ana@example.com")
    [accepted] = hooks.accepted(1)
    assert verified(endpoint["secret"], accepted)["type"] == "user.created"
    assert len(hooks.calls) == 3
    assert len({call["headers"]["webhook-id"] for call in hooks.calls}) == 1
    sesame.wait_for_deliveries()
    [delivery] = sesame.deliveries("--to", hooks.url)
    assert delivery["status"] == "sent" and delivery["attempts"] == 3, delivery
    assert "HTTP 503" in sesame.logs(), "the receiver's answers are in the log for operators"


def test_test_events_and_deleted_endpoints(sesame, receiver):
    """`sesame admin webhooks test` sends a signed webhook.test to one endpoint; after
    `delete` nothing more is sent there."""
    hooks = receiver()
    endpoint = create_webhook(sesame, hooks.url, ["login.succeeded"])
    sesame.cli("admin", "webhooks", "test", endpoint["id"])
    [call] = hooks.accepted(1)
    assert verified(endpoint["secret"], call)["type"] == "webhook.test"
    sesame.cli("admin", "webhooks", "delete", endpoint["id"])
    assert sesame.cli_json("admin", "webhooks", "list") == []
    sign_in(sesame, "ana@example.com")
    time.sleep(2.5)  # the list of endpoints is read fresh every 2 s
    assert len(hooks.calls) == 1


def test_operators_cannot_point_webhooks_at_plain_http_elsewhere_or_unknown_events(sesame):
    """Events carry email addresses: a plain-http URL off this machine is refused, as is an
    event that does not exist (a typo would otherwise subscribe to nothing silently)."""
    refused = sesame.cli("admin", "webhooks", "create", "--url", "http://hooks.example.com/x", "--events",
                         "user.created", check=False)
    assert refused.returncode != 0 and "https" in refused.stderr
    typo = sesame.cli("admin", "webhooks", "create", "--url", "https://hooks.example.com/x", "--events",
                      "user.craeted", check=False)
    assert typo.returncode != 0 and "user.craeted" in typo.stderr


def test_ssrf_webhooks_at_metadata_or_private_addresses_are_refused(sesame):
    """Attack (server-side request forgery): an endpoint at the cloud metadata service or an
    RFC 1918 host would make the server call its own network. Only the allowed loopback is
    accepted."""
    for url in ["https://169.254.169.254/latest/meta-data", "https://10.0.0.5/x", "https://[fd00::1]/x"]:
        refused = sesame.cli("admin", "webhooks", "create", "--url", url, "--events", "user.created", check=False)
        assert refused.returncode != 0 and "webhook_allowed_hosts" in refused.stderr, (url, refused.stderr)
    assert sesame.cli_json("admin", "webhooks", "list") == []


def test_a_message_the_provider_refuses_is_reported_as_delivery_failed(sesame_factory, receiver, helper, tmp_path):
    """Twilio refuses the account (401, code 20003): the outbox gives up at once and the
    endpoint hears `delivery.failed`, naming the channel but never the code."""
    sms_log = tmp_path / "twilio.jsonl"
    port = helper("twilio_mock.py", "--log", str(sms_log), "--account-sid", "AC" + "1" * 32,
                  "--auth-token", "right")
    sesame = sesame_factory(env={
        "SESAME_SMS_PROVIDER": "twilio", "SESAME_SMS_TWILIO_ACCOUNT_SID": "AC" + "1" * 32,
        "SESAME_SMS_TWILIO_AUTH_TOKEN": "wrong", "SESAME_SMS_TWILIO_FROM": "+15005550006",
        "SESAME_SMS_TWILIO_BASE_URL": f"http://127.0.0.1:{port}", **ALLOW_LOOPBACK})
    hooks = receiver()
    endpoint = create_webhook(sesame, hooks.url, ["delivery.failed"])
    assert start_code(sesame, "+14155550123", connection="sms").status_code == 200
    [call] = hooks.accepted(1)
    event = verified(endpoint["secret"], call)
    assert event["type"] == "delivery.failed" and "sms" in event["data"]["description"]
    sent_code = json.loads(sms_log.read_text().splitlines()[0]).get("form", {}).get("Body", "")
    assert not any(part in event["data"]["description"] for part in sent_code.split() if part.isdigit())
