"""Logout that reaches every application, and the OpenID pieces relying parties expect.

* Back-channel logout (OpenID Connect Back-Channel Logout 1.0) with a real relying party:
  Apache's mod_auth_openidc protects a page; a person signs in to it through the hosted
  page, logs out through another application, and Apache's own session is gone.
* The logout token checked with joserfc exactly as the specification's §2.6 says, by a small
  HTTP receiver registered as an application's ``backchannel_logout_uri``.
* ``iss`` in every authorization answer (RFC 9207), success and error, query and form_post.
* ``prompt=create`` and Auth0's ``screen_hint=signup`` open the sign-up path of the page.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from conftest import free_port
from joserfc import jwt
from joserfc.jwk import KeySet

playwright_api = pytest.importorskip("playwright.sync_api")

APACHE = Path("/usr/sbin/apache2")
MODULES = Path("/usr/lib/apache2/modules")
EVENT = "http://schemas.openid.net/event/backchannel-logout"


# -- the browser ----------------------------------------------------------------


def at(sesame, path: str) -> str:
    """``path`` on the issuer's host, where the browser's session cookie lives."""
    return sesame.issuer.rstrip("/") + path


PKCE = {"code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256"}


def authorize_url(sesame, app: dict, callback: str, **extra) -> str:
    """The hosted page's ``/authorize`` for ``app`` answering at ``callback`` (state ``st``)."""
    query = {"client_id": app["client_id"], "redirect_uri": callback, "response_type": "code", "scope": "openid",
             "state": "st", **extra}
    return at(sesame, "/authorize?" + urlencode(query))


def hosted_code_login(page, sesame, email: str = "ana@example.com") -> None:
    """The hosted page's code login from wherever ``page`` is (its identifier form), declining
    the passkey offer when there is one."""
    page.wait_for_selector("input[name=username]")
    page.fill("input[name=username]", email)
    page.click("button[type=submit]")
    page.wait_for_selector("input[name=otp]")
    page.fill("input[name=otp]", sesame.last_code(email))
    page.click("button[type=submit]")
    page.wait_for_load_state()
    if page.query_selector("#skip"):
        with page.expect_navigation():
            page.click("#skip")


def log_out_through(page, sesame, client_id: str, return_to: str) -> None:
    """Auth0's logout, sent by the application ``client_id`` (vouched for by its returnTo)."""
    page.goto(at(sesame, "/v2/logout?" + urlencode({"client_id": client_id, "returnTo": return_to})))


# -- a real relying party: Apache with mod_auth_openidc ---------------------------


class ApacheRP:
    """``apache2 -DFOREGROUND`` with its own configuration in a temporary directory, protecting
    ``/protected/`` with mod_auth_openidc as a confidential client of ``sesame``."""

    def __init__(self, sesame, root: Path, port: int, client_id: str, secret: str):
        self.root, self.port = root, port
        self.origin = f"http://127.0.0.1:{port}"
        self.redirect_uri = f"{self.origin}/protected/redirect_uri"
        (root / "docs" / "protected").mkdir(parents=True)
        (root / "docs" / "protected" / "index.html").write_text("<h1>the protected page</h1>\n")
        (root / "docs" / "public").mkdir()
        (root / "docs" / "public" / "index.html").write_text("<h1>signed out</h1>\n")
        # The workers run as www-data: they read the pages, root opens the logs.
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        modules = ["mpm_event", "authz_core", "authz_user", "authn_core", "auth_openidc"]
        loads = "\n".join(f"LoadModule {m}_module {MODULES}/mod_{m}.so" for m in modules)
        (root / "httpd.conf").write_text(f"""
ServerRoot "{root}"
ServerName 127.0.0.1
Listen 127.0.0.1:{port}
PidFile "{root}/httpd.pid"
ErrorLog "{root}/error.log"
LogLevel warn auth_openidc:debug
User www-data
Group www-data
{loads}
DocumentRoot "{root}/docs"
OIDCProviderMetadataURL {sesame.url("/.well-known/openid-configuration")}
OIDCRedirectURI {self.redirect_uri}
OIDCClientID {client_id}
OIDCClientSecret {secret}
OIDCCryptoPassphrase passphrase-for-tests-only
OIDCScope "openid email"
OIDCProviderTokenEndpointAuth client_secret_post
OIDCCookieSameSite On
<Location /protected/>
    AuthType openid-connect
    Require valid-user
</Location>
""")
        self.process = subprocess.Popen(
            [str(APACHE), "-f", str(root / "httpd.conf"), "-DFOREGROUND"],
            env={**os.environ, "APACHE_RUN_DIR": str(root), "APACHE_LOCK_DIR": str(root),
                 "APACHE_LOG_DIR": str(root)},
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"apache2 ended: {self.process.stdout.read()}\n{self.log()}")
            try:
                requests.get(self.origin + "/public/index.html", timeout=2)
                return
            except requests.ConnectionError:
                time.sleep(0.1)
        raise AssertionError("apache2 did not listen")

    def log(self) -> str:
        path = self.root / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


@pytest.fixture
def apache_rp(sesame):
    if not APACHE.exists() or not (MODULES / "mod_auth_openidc.so").exists():
        pytest.skip("apache2 and libapache2-mod-auth-openidc are not installed")
    port = free_port()
    redirect_uri = f"http://127.0.0.1:{port}/protected/redirect_uri"
    app = sesame.cli_json(
        "admin", "apps", "create", "--name", "Apache", "--type", "regular", "--callback", redirect_uri,
        "--backchannel-logout-uri", redirect_uri + "?logout=backchannel")
    root = Path(tempfile.mkdtemp(prefix="sesame-apache-"))
    rp = ApacheRP(sesame, root, port, app["client_id"], app["client_secret"])
    yield rp
    rp.stop()
    shutil.rmtree(root, ignore_errors=True)


def test_backchannel_logout_ends_the_apache_session(sesame, apache_rp, browser):
    shop = sesame.cli_json(
        "admin", "apps", "create", "--name", "Shop", "--type", "spa", "--callback", apache_rp.origin + "/public/",
        "--logout-url", apache_rp.origin + "/public/index.html")
    page = browser.new_context().new_page()
    page.goto(apache_rp.origin + "/protected/index.html")
    assert page.url.startswith(at(sesame, "/authorize")), page.url
    hosted_code_login(page, sesame)
    page.wait_for_selector("text=the protected page", timeout=15000)
    assert page.url.startswith(apache_rp.origin + "/protected/"), apache_rp.log()

    # Apache keeps its own session: the page opens again without a visit to Sesame.
    page.goto(apache_rp.origin + "/protected/index.html")
    assert page.url.startswith(apache_rp.origin + "/protected/") and "the protected page" in page.content()

    # Another application logs the person out of Sesame.
    log_out_through(page, sesame, shop["client_id"], apache_rp.origin + "/public/index.html")
    assert page.url.startswith(apache_rp.origin + "/public/")
    sesame.wait_for_deliveries()
    sent = [d for d in sesame.deliveries() if d["channel"] == "backchannel_logout"]
    assert [d["status"] for d in sent] == ["sent"], (sent, apache_rp.log())

    # Apache's session is gone: the protected page sends the browser to sign in again.
    page.goto(apache_rp.origin + "/protected/index.html")
    assert page.url.startswith(at(sesame, "/authorize")), (page.url, apache_rp.log())
    page.wait_for_selector("input[name=username]")
    assert "backchannel" in apache_rp.log().lower()


# -- a logout token checked as §2.6 says ----------------------------------------------


class Receiver:
    """An application's back-channel endpoint (and callback): keeps every POSTed form."""

    def __init__(self):
        self.posts: list = []
        self.gets: list = []
        received, loaded = self.posts, self.gets

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # the callback after a login, a front-channel logout page
                loaded.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<h1>callback</h1>")

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
                received.append({"content_type": self.headers.get("Content-Type"), "form": parse_qs(body)})
                self.send_response(200)
                self.send_header("Cache-Control", "no-store")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.server.shutdown()


def validate_logout_token(token: str, sesame, client_id: str, keys: KeySet) -> dict:
    """OpenID Connect Back-Channel Logout 1.0 §2.6, step by step."""
    # 1. Not encrypted (we registered no encryption). 2. Validate as an ID token: signature
    # with the issuer's keys, alg as expected (RS256), iss, aud, iat.
    header = json.loads(__import__("base64").urlsafe_b64decode(token.split(".")[0] + "=="))
    assert header["alg"] == "RS256"
    # §2.4: explicitly typed, so it cannot be confused with other JWTs.
    assert header["typ"] == "logout+jwt"
    decoded = jwt.decode(token, keys, algorithms=["RS256"])
    claims = decoded.claims
    jwt.JWTClaimsRegistry(
        iss={"essential": True, "value": sesame.issuer}, aud={"essential": True, "value": client_id},
        iat={"essential": True}, exp={"essential": True}, jti={"essential": True},
    ).validate(claims)
    assert claims["iat"] <= time.time() + 5 and claims["exp"] - claims["iat"] <= 300, "a short lifetime"
    # 3. sub or sid (Sesame sends both). 4. events with the back-channel member, an object.
    assert claims.get("sub") and claims.get("sid")
    assert isinstance(claims["events"], dict) and claims["events"].get(EVENT) == {}
    # 5. No nonce.
    assert "nonce" not in claims
    return claims


def test_logout_token_is_valid_as_the_spec_says(sesame, receiver, browser):
    app = sesame.cli_json(
        "admin", "apps", "create", "--name", "Receiver", "--type", "regular", "--callback", receiver.origin + "/cb",
        "--logout-url", receiver.origin + "/bye", "--backchannel-logout-uri", receiver.origin + "/backchannel")
    page = browser.new_context().new_page()
    page.goto(authorize_url(sesame, app, receiver.origin + "/cb", nonce="n1"))
    hosted_code_login(page, sesame)
    answer = parse_qs(urlsplit(page.url).query)
    # RFC 9207: the answer names its issuer.
    assert answer["iss"] == [sesame.issuer] and answer["state"] == ["st"]
    tokens = requests.post(sesame.url("/oauth/token"), data={
        "grant_type": "authorization_code", "code": answer["code"][0], "redirect_uri": receiver.origin + "/cb",
        "client_id": app["client_id"], "client_secret": app["client_secret"]}, timeout=10)
    assert tokens.status_code == 200, tokens.text
    keys = KeySet.import_key_set(requests.get(sesame.url("/.well-known/jwks.json"), timeout=10).json())
    id_token = jwt.decode(tokens.json()["id_token"], keys).claims
    assert id_token.get("sid"), "an id_token from a browser session names it"

    log_out_through(page, sesame, app["client_id"], receiver.origin + "/bye")
    sesame.wait_for_deliveries()
    deadline = time.monotonic() + 10
    while not receiver.posts and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(receiver.posts) == 1, receiver.posts
    post = receiver.posts[0]
    assert post["content_type"].startswith("application/x-www-form-urlencoded")
    claims = validate_logout_token(post["form"]["logout_token"][0], sesame, app["client_id"], keys)
    # The session and the person the application knows from its id_token.
    assert claims["sid"] == id_token["sid"] and claims["sub"] == id_token["sub"]


def test_discovery_advertises_the_logout_channels_and_iss(sesame):
    doc = requests.get(sesame.url("/.well-known/openid-configuration"), timeout=10).json()
    for key in ["backchannel_logout_supported", "backchannel_logout_session_supported",
                "frontchannel_logout_supported", "frontchannel_logout_session_supported",
                "authorization_response_iss_parameter_supported"]:
        assert doc[key] is True, key


def test_management_api_accepts_auth0s_oidc_logout(sesame):
    """Auth0's clients carry ``oidc_logout.backchannel_logout_urls``; OIDC names the field
    ``backchannel_logout_uri``. Both set the one URI; a javascript: URI is refused."""
    token = sesame.cli_json("admin", "tokens", "create", "--name", "operator", "--all-scopes")["token"]
    bearer = {"Authorization": "Bearer " + token}
    created = requests.post(sesame.url("/api/v2/clients"), headers=bearer, json={
        "name": "RP", "app_type": "regular_web",
        "oidc_logout": {"backchannel_logout_urls": ["https://rp.example.com/logout"]}}, timeout=10)
    assert created.status_code == 201, created.text
    body = created.json()
    assert body["backchannel_logout_uri"] == "https://rp.example.com/logout"
    assert body["oidc_logout"] == {"backchannel_logout_urls": ["https://rp.example.com/logout"]}
    bad = requests.patch(sesame.url(f"/api/v2/clients/{body['client_id']}"), headers=bearer,
                         json={"backchannel_logout_uri": "javascript:alert(1)"}, timeout=10)
    assert bad.status_code == 400 and "backchannel_logout_uri" in bad.json()["error_description"]


# -- iss in every authorization answer (RFC 9207) ------------------------------------------


def test_error_answers_carry_iss_in_query_and_form_post(sesame):
    cb = "http://127.0.0.1:9/cb"
    app = sesame.cli_json("admin", "apps", "create", "--name", "Iss", "--type", "spa", "--callback", cb)
    base = {"client_id": app["client_id"], "redirect_uri": cb, "response_type": "code", "prompt": "none",
            "state": "s", "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            "code_challenge_method": "S256"}
    query = requests.get(sesame.url("/authorize?" + urlencode(base)), allow_redirects=False, timeout=10)
    assert query.status_code in (302, 303), query.text
    answer = parse_qs(urlsplit(query.headers["Location"]).query)
    assert answer["error"] == ["login_required"] and answer["iss"] == [sesame.issuer]
    form = requests.get(sesame.url("/authorize?" + urlencode({**base, "response_mode": "form_post"})), timeout=10)
    assert f'name="iss" value="{sesame.issuer}"' in form.text
    fragment = requests.get(sesame.url("/authorize?" + urlencode({**base, "response_mode": "fragment"})),
                            allow_redirects=False, timeout=10)
    assert parse_qs(urlsplit(fragment.headers["Location"]).fragment)["iss"] == [sesame.issuer]


def test_frontchannel_logout_frames_the_application_then_continues(sesame, receiver, browser):
    app = sesame.cli_json(
        "admin", "apps", "create", "--name", "Frames", "--type", "spa", "--callback", receiver.origin + "/cb",
        "--logout-url", receiver.origin + "/bye", "--frontchannel-logout-uri", receiver.origin + "/frontchannel")
    page = browser.new_context().new_page()
    page.goto(authorize_url(sesame, app, receiver.origin + "/cb", **PKCE))
    hosted_code_login(page, sesame)
    assert page.url.startswith(receiver.origin + "/cb")
    log_out_through(page, sesame, app["client_id"], receiver.origin + "/bye")
    page.wait_for_url(receiver.origin + "/bye", timeout=15000)
    frames = [urlsplit(p) for p in receiver.gets if p.startswith("/frontchannel")]
    assert len(frames) == 1, receiver.gets
    framed = parse_qs(frames[0].query)
    assert framed["iss"] == [sesame.issuer] and framed["sid"][0]


def test_prompt_create_opens_the_sign_up_path(sesame, receiver, browser):
    app = sesame.cli_json(
        "admin", "apps", "create", "--name", "Join", "--type", "spa", "--callback", receiver.origin + "/cb")
    page = browser.new_context().new_page()
    for extra in [{"prompt": "create"}, {"screen_hint": "signup"}]:
        page.goto(authorize_url(sesame, app, receiver.origin + "/cb", **PKCE, **extra))
        assert page.inner_text("h1").startswith("Create your account"), extra
        assert not page.query_selector("#passkey-button")
    # A new person signs up; the answer names its issuer.
    hosted_code_login(page, sesame, "new.person@example.com")
    answer = parse_qs(urlsplit(page.url).query)
    assert page.url.startswith(receiver.origin + "/cb") and answer["code"] and answer["iss"] == [sesame.issuer]
    discovery = requests.get(sesame.url("/.well-known/openid-configuration"), timeout=10).json()
    assert "create" in discovery["prompt_values_supported"]


def test_operator_revoking_a_session_with_the_cli_reaches_the_application(sesame, receiver, browser):
    """The CLI writes the logout token into the durable outbox; the server's worker sends it."""
    app = sesame.cli_json(
        "admin", "apps", "create", "--name", "Ops", "--type", "spa", "--callback", receiver.origin + "/cb",
        "--backchannel-logout-uri", receiver.origin + "/backchannel")
    page = browser.new_context().new_page()
    page.goto(authorize_url(sesame, app, receiver.origin + "/cb", **PKCE))
    hosted_code_login(page, sesame)
    assert page.url.startswith(receiver.origin + "/cb")
    sesame.cli("admin", "sessions", "revoke", "--user", "ana@example.com")
    deadline = time.monotonic() + 15
    while not receiver.posts and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(receiver.posts) == 1, sesame.deliveries()
    token = receiver.posts[0]["form"]["logout_token"][0]
    keys = KeySet.import_key_set(requests.get(sesame.url("/.well-known/jwks.json"), timeout=10).json())
    validate_logout_token(token, sesame, app["client_id"], keys)
