#!/usr/bin/env python3
"""A real SMTP server for SesameDelivery's tests, built on aiosmtpd.

Every message it accepts is appended to --out as one JSON line:
{"mail_from", "rcpt_tos", "data", "mail_options", "tls", "auth_login", "helo"}
where "data" is the message as received (dot-stuffing removed, CRLF kept).

    python3 smtp_sink.py --port 2525 --out /tmp/mail.jsonl [--starttls|--implicit-tls --cert-dir DIR]
                         [--auth user:password [--exclude-auth PLAIN]] [--no-ehlo] [--delay SECONDS]

With --starttls or --implicit-tls a self-signed certificate for 127.0.0.1 and localhost is
written to DIR/cert.pem (and DIR/key.pem) before the port opens, so a client can trust it.
With --port 0 the system picks the port; either way "smtp_sink listening on 127.0.0.1:PORT"
is printed once it listens. With --delay each message is held that long before it is
written and accepted (a slow provider: a send stays in flight). The process runs until
SIGTERM or SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import ssl
import subprocess
import sys
import threading
from pathlib import Path

try:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword
except ImportError:  # the Swift tests check this first and explain how to install it
    sys.exit("aiosmtpd is missing: pip install -r Tests/e2e/requirements.txt")


class SinkController(Controller):
    """A Controller that may listen on a port the system picks (port 0), and waits long
    enough for a busy machine: aiosmtpd's own default gives up after one second."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, ready_timeout=60.0, **kwargs)

    def _trigger_server(self):
        # start() connects to self.port to wake the server; it must be the bound one.
        self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()


class Recorder:
    """aiosmtpd handler: writes each message to the JSONL file and accepts it."""

    def __init__(self, out: Path, no_ehlo: bool, delay: float = 0.0) -> None:
        self.out = out
        self.no_ehlo = no_ehlo
        self.delay = delay
        self.lock = threading.Lock()

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        if self.no_ehlo:  # play an RFC 821 server, so the client must fall back to HELO
            return ["502 5.5.1 EHLO not implemented"]
        session.host_name = hostname
        return responses

    async def handle_DATA(self, server, session, envelope):
        if self.delay:
            await asyncio.sleep(self.delay)
        auth = session.auth_data
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "data": envelope.original_content.decode("utf-8", errors="replace"),
            "mail_options": envelope.mail_options,
            "tls": server.transport.get_extra_info("ssl_object") is not None,
            "auth_login": auth.login.decode() if isinstance(auth, LoginPassword) else None,
            "helo": session.host_name,
        }
        with self.lock, self.out.open("a", encoding="utf-8") as file:
            file.write(json.dumps(record) + "\n")
        return "250 2.0.0 OK: queued as sink"


def make_certificate(directory: Path) -> ssl.SSLContext:
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    security = parser.add_mutually_exclusive_group()
    security.add_argument("--starttls", action="store_true", help="offer and require STARTTLS")
    security.add_argument("--implicit-tls", action="store_true", help="TLS from the first byte")
    parser.add_argument("--cert-dir", type=Path, help="where to write cert.pem for TLS")
    parser.add_argument("--auth", help="require AUTH with user:password")
    parser.add_argument("--exclude-auth", action="append", default=[], help="hide a mechanism, e.g. PLAIN")
    parser.add_argument("--no-ehlo", action="store_true", help="answer EHLO with 502")
    parser.add_argument("--delay", type=float, default=0.0, help="hold each message this long before accepting it")
    args = parser.parse_args()

    context = None
    if args.starttls or args.implicit_tls:
        if args.cert_dir is None:
            parser.error("--cert-dir is required with TLS")
        context = make_certificate(args.cert_dir)

    options: dict = {"hostname": "127.0.0.1", "port": args.port}
    smtp_options: dict = {"ident": "Sesame test sink"}
    if args.starttls:
        smtp_options.update(tls_context=context, require_starttls=True)
    if args.implicit_tls:
        options["ssl_context"] = context
    if args.auth:
        user, _, password = args.auth.partition(":")

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = (isinstance(auth_data, LoginPassword)
                  and auth_data.login == user.encode() and auth_data.password == password.encode())
            # handled=False: on failure aiosmtpd itself answers "535 5.7.8".
            return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

        smtp_options.update(authenticator=authenticator, auth_required=True,
                            auth_require_tls=args.starttls, auth_exclude_mechanism=args.exclude_auth)

    args.out.touch()
    controller = SinkController(Recorder(args.out, args.no_ehlo, args.delay), **options, **smtp_options)
    # A parent may spawn us with SIGTERM blocked (Foundation's Process on Linux does):
    # unblock it, or terminating the server would hang the test that started it.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    controller.start()
    print(f"smtp_sink listening on 127.0.0.1:{controller.port}", flush=True)
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
