"""The hosted login page as a browser test drives it: its strings, an authorize URL with PKCE,
the application's own little web server (``AppServer``) that records what reaches its callback,
the code steps, and the code's exchange. Shared by the hosted-page suites.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import os
import threading
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import requests

LOCALES = Path(__file__).resolve().parents[2] / "Sources" / "SesameServer" / "Resources" / "locales"
CALLBACK = "http://localhost:3000/callback"  # the default application's callback


def strings(language: str) -> dict:
    return json.loads((LOCALES / f"{language}.json").read_text())


def text(language: str, key: str, **values) -> str:
    """A string of a language file, with its {{placeholders}} filled as the page fills them."""
    result = strings(language)[key]
    for name, value in values.items():
        result = result.replace("{{" + name + "}}", value)
    return result


def server(sesame) -> str:
    """Sesame's base URL on the issuer's host (localhost)."""
    return sesame.base_url.replace("127.0.0.1", "localhost")


def pkce() -> tuple[str, str]:
    verifier = base64.urlsafe_b64encode(os.urandom(40)).rstrip(b"=").decode()
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorize_url(sesame, challenge: str, state: str = "st-1", client_id: str | None = None,
                  redirect_uri: str = CALLBACK, **extra) -> str:
    query = {
        "client_id": client_id or sesame.client_id, "redirect_uri": redirect_uri, "response_type": "code",
        "scope": "openid email", "state": state, "code_challenge": challenge, "code_challenge_method": "S256",
        **extra,
    }
    return f"{server(sesame)}/authorize?" + urlencode(query)


class AppServer:
    """The application's own web server on http://localhost:<port>: records every request
    (method, path with query, form body) and answers with a tiny page."""

    def __init__(self) -> None:
        self.hits: list = []
        hits = self.hits

        class Handler(http.server.BaseHTTPRequestHandler):
            def answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                hits.append({"method": self.command, "url": self.path, "body": body})
                page = b"<!doctype html><title>app</title><p>signed in</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            do_GET = do_POST = answer

            def log_message(self, *args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.origin = f"http://localhost:{self.server.server_address[1]}"

    def callback(self, name: str = "callback") -> str:
        return f"{self.origin}/{name}"

    def arrivals(self, name: str = "callback") -> list:
        return [hit for hit in self.hits if hit["url"].split("?")[0] == f"/{name}"]


def use_callback(sesame, callback: str) -> str:
    """Lists ``callback`` on the default application; returns it."""
    sesame.cli("admin", "apps", "update", sesame.client_id, "--add-callback", callback)
    return callback


def wait_arrival(page, app: AppServer, name: str = "callback", timeout_ms: int = 10000) -> dict:
    waited = 0
    while not app.arrivals(name) and waited < timeout_ms:
        page.wait_for_timeout(100)
        waited += 100
    assert app.arrivals(name), f"never reached the callback; page at {page.url}:\n{page.inner_text('body')[:2000]}"
    # The application answers before the browser commits the navigation: wait for the page to
    # land, or the test's next goto is cut off by this navigation finishing.
    page.wait_for_url(lambda url: urlsplit(url).path == f"/{name}", wait_until="load", timeout=timeout_ms)
    return app.arrivals(name)[0]


def query_of(hit: dict) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(hit["url"]).query).items()}


def exchange(sesame, code: str, verifier: str, client_id: str | None = None, redirect_uri: str = CALLBACK) -> dict:
    response = requests.post(sesame.url("/oauth/token"), json={
        "grant_type": "authorization_code", "client_id": client_id or sesame.client_id, "code": code,
        "redirect_uri": redirect_uri, "code_verifier": verifier}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def userinfo(sesame, tokens: dict) -> dict:
    info = requests.get(sesame.url("/userinfo"), headers={"Authorization": f"Bearer {tokens['access_token']}"},
                        timeout=10)
    assert info.status_code == 200, info.text
    return info.json()


def email_of(sesame, tokens: dict) -> str:
    return userinfo(sesame, tokens)["email"]


def ask_for_code(page, sesame, address: str) -> str:
    """Types ``address``, asks for a code and waits for the code step; returns the code."""
    page.fill("#username", address)
    page.click("button[name=send][value=code]")
    page.wait_for_selector("input#otp")
    return sesame.last_code(address)


def enter_code(page, code: str) -> None:
    page.fill("#otp", code)
    page.click("button.primary[type=submit]")
