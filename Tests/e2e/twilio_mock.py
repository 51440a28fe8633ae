#!/usr/bin/env python3
"""A local stand-in for Twilio's Messages API (and an Auth0-style SMS gateway).

    python3 twilio_mock.py --port 8099 --log /tmp/twilio.jsonl --account-sid AC... --auth-token secret

POST /2010-04-01/Accounts/{AccountSid}/Messages.json checks what Twilio checks: HTTP Basic
auth (AccountSid:AuthToken), a form-encoded body, To in E.164, Body, and From or
MessagingServiceSid. It answers 201 with a Twilio-shaped message resource, or Twilio's
error document {"code", "message", "more_info", "status"}.

POST /gateway records the JSON body and Authorization header and answers 200;
POST /gateway/fail records them and answers 502 {"message": ...}.

Every request is appended to --log as one JSON line. With --port 0 the system picks the
port; either way "twilio_mock listening on 127.0.0.1:PORT" is printed once it listens. Runs
until SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import secrets
import signal
import threading
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

E164 = re.compile(r"^\+[1-9]\d{7,14}$")
MESSAGES_PATH = re.compile(r"^/2010-04-01/Accounts/([^/]+)/Messages\.json$")
GATEWAY_FAILURE = "Carrier rejected the message"


def twilio_error(status: int, code: int, message: str) -> tuple[int, dict]:
    return status, {"code": code, "message": message,
                    "more_info": f"https://www.twilio.com/docs/errors/{code}", "status": status}


class Handler(BaseHTTPRequestHandler):
    server_version = "twilio-mock/1.0"

    def log_message(self, format, *args):  # keep test output quiet
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        record = {"method": "POST", "path": self.path,
                  "authorization": self.headers.get("Authorization"),
                  "content_type": self.headers.get("Content-Type")}
        if self.path in ("/gateway", "/gateway/fail"):
            status, body = self.gateway(raw, record)
        elif match := MESSAGES_PATH.match(self.path):
            status, body = self.messages(match.group(1), raw, record)
        else:
            status, body = twilio_error(404, 20404, "The requested resource was not found")
        record["status"] = status
        self.server.record(record)
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def gateway(self, raw: bytes, record: dict) -> tuple[int, dict]:
        try:
            record["json"] = json.loads(raw)
        except ValueError:
            return 400, {"message": "Body is not JSON"}
        if self.path == "/gateway/fail":
            return 502, {"message": GATEWAY_FAILURE, "code": "carrier_rejected"}
        return 200, {"status": "sent"}

    def messages(self, account: str, raw: bytes, record: dict) -> tuple[int, dict]:
        expected = "Basic " + base64.b64encode(
            f"{self.server.account_sid}:{self.server.auth_token}".encode()).decode()
        if self.headers.get("Authorization") != expected:
            return twilio_error(401, 20003, "Authenticate")
        if account != self.server.account_sid:
            return twilio_error(404, 20404, f"The requested resource {self.path} was not found")
        if not (self.headers.get("Content-Type") or "").startswith("application/x-www-form-urlencoded"):
            return twilio_error(400, 20001, "Content-Type must be application/x-www-form-urlencoded")
        form = {key: values[0] for key, values in parse_qs(raw.decode(), keep_blank_values=True).items()}
        record["form"] = form
        to, body = form.get("To"), form.get("Body")
        sender, service = form.get("From"), form.get("MessagingServiceSid")
        if not to:
            return twilio_error(400, 21604, "A 'To' phone number is required.")
        if not E164.match(to):
            return twilio_error(400, 21211, f"The 'To' number {to} is not a valid phone number.")
        if not sender and not service:
            return twilio_error(400, 21603, "A 'From' phone number is required.")
        if service and not re.match(r"^MG[0-9a-fA-F]{32}$", service):
            return twilio_error(400, 21701, f"The Messaging Service Sid {service} is invalid.")
        if not body:
            return twilio_error(400, 21602, "Message body is required.")
        if len(body) > 1600:
            return twilio_error(400, 21617, "The concatenated message body exceeds the 1600 character limit.")
        sid = "SM" + secrets.token_hex(16)
        now = formatdate(usegmt=True)
        uri = f"/2010-04-01/Accounts/{account}/Messages/{sid}.json"
        return 201, {
            "account_sid": account, "api_version": "2010-04-01", "body": body,
            "date_created": now, "date_sent": None, "date_updated": now,
            "direction": "outbound-api", "error_code": None, "error_message": None,
            "from": sender, "messaging_service_sid": service, "num_media": "0",
            "num_segments": "1", "price": None, "price_unit": "USD", "sid": sid,
            "status": "queued" if sender else "accepted",
            "subresource_uris": {"media": uri.replace(".json", "/Media.json")},
            "to": to, "uri": uri,
        }


class MockServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, log: Path, account_sid: str, auth_token: str) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.log, self.account_sid, self.auth_token = log, account_sid, auth_token
        self.lock = threading.Lock()

    def record(self, record: dict) -> None:
        with self.lock, self.log.open("a", encoding="utf-8") as file:
            file.write(json.dumps(record) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--account-sid", default="AC" + "0" * 32)
    parser.add_argument("--auth-token", default="test-auth-token")
    args = parser.parse_args()
    args.log.touch()
    server = MockServer(args.port, args.log, args.account_sid, args.auth_token)
    # serve_forever runs in a thread so the main thread can take SIGTERM and shut it down.
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    # A parent may spawn us with SIGTERM blocked (Foundation's Process on Linux does):
    # unblock it, or terminating the server would hang the test that started it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    thread.start()
    # The constructor has bound and is listening: connections queue until serve_forever runs.
    print(f"twilio_mock listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    stop.wait()
    server.shutdown()


if __name__ == "__main__":
    main()
