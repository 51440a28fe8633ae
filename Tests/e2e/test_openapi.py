"""The OpenAPI document (Sources/SesameServer/Resources/openapi.json) against the code and a
live server.

1. The document is valid OpenAPI 3.1 (openapi-spec-validator).
2. It describes every route the Swift sources register, and nothing they do not: a route
   described ahead of its implementation fails the test until the code has it.
3. The server serves this very document at ``/openapi.json``.
4. Schemathesis runs every operation against a live ``sesame serve``, with the checks
   not_a_server_error, response_schema_conformance, status_code_conformance and
   content_type_conformance, bounded in time (about two minutes by default), in two passes:
   every operation but the four that change or delete users and applications, then those
   four against a user and an application made for them (so the first pass keeps its
   signed-in user and its application's callbacks).

The schemathesis run is tuned by environment variables (``scripts/schemathesis DURATION``
sets them for a longer run):

- ``SESAME_SCHEMATHESIS_MAX_TIME``: the run's time budget in seconds (default 110),
- ``SESAME_SCHEMATHESIS_MAX_EXAMPLES``: test cases per operation and phase (default 8),
- ``SESAME_SCHEMATHESIS_WORKERS``: concurrent workers (default 1),
- ``SESAME_SCHEMATHESIS_SEED``: a seed, to reproduce a run,
- ``SESAME_SCHEMATHESIS_REPORT_DIR``: where the reports go (default: the test's tmp dir).

What schemathesis is given so that it gets past the first refusal (a schemathesis.toml per
pass): a management token with every Management API scope (``-H "Authorization: Bearer
sadm_…"``, every operation), a user's access token with every
scope the ``/me`` routes and ``/userinfo`` need (those operations only), the metrics token
(``/metrics`` only), and dictionaries of live values it uses most of the time: the server's
client_id, its ``/welcome`` callback, the signed-in user's id for ``{id}``, the asset names,
connection names, an address and a number, the hosted page's forgery-protection pair (the
``sesame_csrf`` cookie and its ``csrf_token``, so the page's forms get past the check) and a
live browser session (``sesame_session``). Before the run, every list gets something to
show: a passkey (a software authenticator signs up ``passkey@example.com``, whose token
``/me/passkeys`` gets), a browser session of the hosted page, a device key, and an
application with iOS and Android identities for the association files.

Nothing is excluded. Operations whose success needs a real authenticator or a secret that
only a mailbox holds (the webauthn grant, ``/authorize/passkey*``, the magic-link pages,
the device-key grant) are still run: schemathesis cannot reach their success answer, but
every refusal they give is checked.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

import flows
from soft_authenticator import SoftAuthenticator

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DOCUMENT = ROOT / "Sources" / "SesameServer" / "Resources" / "openapi.json"
SOURCES = ROOT / "Sources" / "SesameServer"

CHECKS = "not_a_server_error,response_schema_conformance,status_code_conformance,content_type_conformance"

MAX_TIME = int(os.environ.get("SESAME_SCHEMATHESIS_MAX_TIME", "110"))
MAX_EXAMPLES = int(os.environ.get("SESAME_SCHEMATHESIS_MAX_EXAMPLES", "8"))
# One worker: with several, Python 3.11's `ast` module (which Hypothesis calls to describe
# its filters) races between threads and schemathesis reports "AST constructor recursion
# depth mismatch", an error of the tool, not of the server.
WORKERS = os.environ.get("SESAME_SCHEMATHESIS_WORKERS", "1")

# The limits that would otherwise answer 429 to most of a fuzzing run from one address. 429
# stays documented where it can happen; the device-key challenge's limit (600 a minute) is
# not configurable and a run does not reach it.
RATE_LIMITS = {
    "SESAME_RATE_LIMIT_START_PER_IP": "100000000",
    "SESAME_RATE_LIMIT_START_PER_RECIPIENT": "100000000",
    "SESAME_RATE_LIMIT_OTP_FAILURES_PER_HOUR": "10000",
    "SESAME_RATE_LIMIT_OTP_FAILURES_PER_DAY": "100000",
    "SESAME_RATE_LIMIT_PASSKEY_REGISTER_PER_IP": "100000000",
    "SESAME_RATE_LIMIT_PASSKEY_CHALLENGE_PER_IP": "100000000",
    "SESAME_CONNECTIONS_SMS_COUNTRY_HOURLY_LIMIT": "100000000",
    "SESAME_CONNECTIONS_SMS_HOURLY_LIMIT": "100000000",
    "SESAME_CONNECTIONS_SMS_HIGH_RISK_HOURLY_LIMIT": "100000000",
    "SESAME_CONNECTIONS_SMS_IP_HOURLY_LIMIT": "100000000",
    "SESAME_CONNECTIONS_SMS_HIGH_RISK_IP_HOURLY_LIMIT": "100000000",
    "SESAME_RATE_LIMIT_GRANT_REFUSALS_PER_IP_PER_MINUTE": "100000000",
}
# The token `/metrics` is protected with.
METRICS_TOKEN = "smt_schemathesis_metrics_token_0123456789"
# Warnings and errors only: the access log of thousands of requests would bury them.
SERVER_ENV = {**RATE_LIMITS, "SESAME_METRICS_TOKEN": METRICS_TOKEN, "SESAME_LOG_LEVEL": "warning"}

MANAGEMENT_SCOPES = [
    "read:users", "create:users", "update:users", "delete:users", "read:clients", "create:clients", "update:clients",
    "delete:clients", "read:logs", "read:device_credentials", "create:device_credentials",
    "delete:device_credentials", "read:client_keys", "update:client_keys", "read:client_grants",
    "create:client_grants", "update:client_grants", "delete:client_grants", "read:connections", "read:sessions",
    "delete:sessions", "read:refresh_tokens", "delete:refresh_tokens",
]
USER_SCOPES = (
    "openid profile email phone offline_access read:me:sessions delete:me:sessions "
    "create:me:authentication_methods read:me:authentication_methods update:me:authentication_methods "
    "delete:me:authentication_methods "
    "create:current_user_device_credentials read:current_user_device_credentials "
    "delete:current_user_device_credentials"
)


def load_document() -> dict:
    return json.loads(DOCUMENT.read_text())


# -- 1. the document itself ------------------------------------------------------------------

def test_document_is_valid_openapi_3_1():
    from openapi_spec_validator import validate

    document = load_document()
    assert document["openapi"] == "3.1.0"
    assert document["servers"] == [{"url": "/"}]
    validate(document)


def test_every_operation_is_tagged_and_answers_errors_in_one_shape():
    document = load_document()
    tags = {tag["name"] for tag in document["tags"]}
    assert tags == {"Authentication API", "OIDC", "Hosted page", "Passkeys", "Device credentials",
                    "Management API", "Operations"}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            label = f"{method.upper()} {path}"
            assert operation.get("tags") and set(operation["tags"]) <= tags, label
            assert operation.get("operationId"), label
            for status, response in operation["responses"].items():
                if "$ref" in response:
                    continue
                # Auth0's Management and My Account APIs have their own error bodies; the
                # Authentication API keeps its.
                shape = ("ManagementError" if path.startswith("/api/v2/")
                         else "MyAccountError" if path.startswith("/me/v1/") else "Error")
                for media, content in response.get("content", {}).items():
                    if media == "application/json" and status[0] in "45":
                        assert content["schema"] == {"$ref": f"#/components/schemas/{shape}"}, f"{label} {status}"


# -- 2. the document against the routes the code registers -------------------------------------

ROUTE_RE = re.compile(r'router\.(get|post|put|patch|delete)\("([^"]+)"')


def registered_routes() -> set[tuple[str, str]]:
    """Every ``router.<method>("path", …)`` of the server's sources, `:name` as `{name}`."""
    routes = set()
    for source in SOURCES.rglob("*.swift"):
        for method, path in ROUTE_RE.findall(source.read_text()):
            routes.add((method, re.sub(r":([A-Za-z_]+)", r"{\1}", path)))
    return routes


def documented_routes() -> set[tuple[str, str]]:
    return {(method, path) for path, item in load_document()["paths"].items() for method in item}


def test_every_registered_route_is_documented():
    missing = sorted(registered_routes() - documented_routes())
    assert not missing, f"routes the code registers that openapi.json does not describe: {missing}"


def test_every_documented_route_is_registered():
    """Fails while routes described from their specification are not implemented yet."""
    ahead = sorted(documented_routes() - registered_routes())
    assert not ahead, f"routes openapi.json describes that the code does not register: {ahead}"


# -- 3. the served document ------------------------------------------------------------------

def test_the_server_serves_this_document(sesame):
    response = requests.get(sesame.url("/openapi.json"), timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == load_document(), "the binary serves another openapi.json than the sources hold"


# -- 4. schemathesis against a live server -------------------------------------------------------

def management_token(server) -> str:
    """A management token with every Management API scope, or (a binary without `--scope`)
    one with all of them."""
    scoped = ["admin", "tokens", "create", "--name", "schemathesis"]
    for scope in MANAGEMENT_SCOPES:
        scoped += ["--scope", scope]
    result = server.cli(*scoped, "--json", check=False)
    if result.returncode != 0:
        result = server.cli("admin", "tokens", "create", "--name", "schemathesis", "--all-scopes", "--json")
    token = json.loads(result.stdout)["token"]
    assert token.startswith("sadm_"), token
    return token


def toml_string(value: str) -> str:
    return json.dumps(value)  # a TOML basic string accepts JSON's escapes for these values


def hosted_page_binding(server, callback: str) -> tuple[str, str]:
    """The hosted page's forgery-protection pair: the `sesame_csrf` cookie a browser gets
    from `/authorize` and the `csrf_token` its forms carry."""
    session = requests.Session()
    page = session.get(server.url("/authorize"), params={
        "client_id": server.client_id, "redirect_uri": callback, "response_type": "code"}, timeout=10)
    assert page.status_code == 200, page.text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    return session.cookies["sesame_csrf"], token


def passkey_user(server) -> tuple[str, str]:
    """A user who signed up with a passkey (a software authenticator): their access token, with
    the `/me` scopes, and the passkey's id, so `/me/passkeys` has something to show."""
    authenticator = SoftAuthenticator(origin=server.issuer.rstrip("/"))
    registration = requests.post(server.url("/passkey/register"), json={
        "client_id": server.client_id, "user_profile": {"email": "passkey@example.com", "name": "Pat Key"}}, timeout=10)
    assert registration.status_code == 200, registration.text
    challenge = registration.json()
    credential = authenticator.create(challenge["authn_params_public_key"])
    tokens = requests.post(server.url("/oauth/token"), json={
        "grant_type": "urn:okta:params:oauth:grant-type:webauthn", "client_id": server.client_id,
        "auth_session": challenge["auth_session"], "authn_response": credential, "scope": USER_SCOPES}, timeout=10)
    assert tokens.status_code == 200, tokens.text
    token = tokens.json()["access_token"]
    passkeys = requests.get(server.url("/me/passkeys"), headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert passkeys.status_code == 200 and passkeys.json(), passkeys.text
    return token, passkeys.json()[0]["id"]


def browser_session(server, email: str, callback: str) -> str:
    """Signs `email` in on the hosted page with a code: the `sesame_session` secret of the
    browser session it begins (so `/me/sessions` lists one and `/authorize` answers from it)."""
    browser = requests.Session()
    page = browser.get(server.url("/authorize"), params={
        "client_id": server.client_id, "redirect_uri": callback, "response_type": "code"}, timeout=10)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    form = {"client_id": server.client_id, "redirect_uri": callback, "response_type": "code", "csrf_token": token}
    started = browser.post(server.url("/authorize/start"), data={**form, "username": email, "channel": "email"},
                           timeout=10)
    assert started.status_code == 200, started.text
    verified = browser.post(server.url("/authorize/verify"), data={
        **form, "username": email, "realm": "email", "channel": "email", "otp": server.last_code(email)},
        allow_redirects=False, timeout=10)
    assert verified.status_code in (200, 303), verified.text
    return browser.cookies["sesame_session"]


def device_credential(server, management: str, user_id: str) -> str:
    """A P-256 device key registered for `user_id` with the management token: its id."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    pem = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    created = requests.post(server.url("/api/v2/device-credentials"), headers={"Authorization": f"Bearer {management}"},
                            json={"device_name": "Schemathesis phone", "type": "public_key", "value": pem,
                                  "device_id": "5C1E3A7B-0000-4000-8000-000000000001", "client_id": server.client_id,
                                  "user_id": user_id}, timeout=10)
    assert created.status_code == 201, created.text
    return created.json()["id"]


def write_config(path: Path, *, access_token: str, passkey_token: str, client_ids: list, callbacks: list, ids: list,
                 emails: list, csrf: tuple[str, str], session: str) -> None:
    """schemathesis.toml: the live values it draws from, and the user's token for `/me` and
    `/userinfo` (the management token of the command line's -H goes everywhere else)."""
    def values(items: list) -> str:
        return "[" + ", ".join(toml_string(item) for item in items) + "]"

    assets = sorted(file.name for file in (SOURCES / "Resources" / "assets").iterdir())
    path.write_text(f"""
[dictionaries]
clients = {{ values = {values(client_ids)} }}
callbacks = {{ values = {values(callbacks)} }}
ids = {{ values = {values(ids)} }}
emails = {{ values = {values(emails)} }}
phones = {{ values = ["+14155550123"] }}
connections = {{ values = ["email", "sms"] }}
assets = {{ values = {values(assets)} }}
csrf_cookie = {{ values = {values([csrf[0]])} }}
csrf_token = {{ values = {values([csrf[1]])} }}
session = {{ values = {values([session])} }}

[parameters]
"body.client_id" = {{ dictionary = "clients", probability = 0.8 }}
"query.client_id" = {{ dictionary = "clients", probability = 0.8 }}
"body.redirect_uri" = {{ dictionary = "callbacks", probability = 0.8 }}
"query.redirect_uri" = {{ dictionary = "callbacks", probability = 0.8 }}
"path.id" = {{ dictionary = "ids", probability = 0.6 }}
"path.name" = {{ dictionary = "assets", probability = 0.7 }}
"body.email" = {{ dictionary = "emails", probability = 0.5 }}
"body.username" = {{ dictionary = "emails", probability = 0.5 }}
"query.email" = {{ dictionary = "emails", probability = 0.5 }}
"body.phone_number" = {{ dictionary = "phones", probability = 0.5 }}
"body.connection" = {{ dictionary = "connections", probability = 0.7 }}
"body.realm" = {{ dictionary = "connections", probability = 0.7 }}
"cookie.sesame_csrf" = {{ dictionary = "csrf_cookie", probability = 0.8 }}
"body.csrf_token" = {{ dictionary = "csrf_token", probability = 0.8 }}
"cookie.sesame_session" = {{ dictionary = "session", probability = 0.5 }}

# A user's own access token where the routes take one (every other operation gets the
# management token of the command line's -H).
[[operations]]
include-path-regex = "^/(userinfo$|me/sessions)"
headers = {{ Authorization = {toml_string("Bearer " + access_token)} }}

# The passkey user's token for their passkeys, also through the My Account API.
[[operations]]
include-path-regex = "^/me/(passkeys|v1/authentication-methods/)"
headers = {{ Authorization = {toml_string("Bearer " + passkey_token)} }}

# The code-login user's token for starting a passkey enrolment, which a passkey signup's
# unproven address may not.
[[operations]]
include-path = "/me/v1/authentication-methods"
headers = {{ Authorization = {toml_string("Bearer " + access_token)} }}

[[operations]]
include-path = "/metrics"
headers = {{ Authorization = {toml_string("Bearer " + METRICS_TOKEN)} }}
""")


def schemathesis_command(server, config: Path, report_dir: Path, token: str, name: str, seconds: int,
                         selection: list) -> list:
    st = shutil.which("st", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    assert st, "schemathesis is not installed: pip install -r Tests/e2e/requirements.txt"
    command = [
        st, "--config-file", str(config), "run", str(DOCUMENT),
        "--url", server.base_url,
        "-H", f"Authorization: Bearer {token}",
        "--checks", CHECKS,
        "--max-examples", str(MAX_EXAMPLES),
        "--max-time", str(seconds),
        "--workers", WORKERS,
        "--request-timeout", "20",
        "--generation-database", "none",
        "--suppress-health-check", "all",
        "--continue-on-failure",
        "--no-color",
        "--report", "json,ndjson,junit",
        "--report-dir", str(report_dir),
        "--report-json-path", str(report_dir / f"schemathesis-{name}.json"),
        "--report-junit-path", str(report_dir / f"schemathesis-{name}.junit.xml"),
        "--report-ndjson-path", str(report_dir / f"schemathesis-{name}.ndjson"),
        *selection,
    ]
    if seed := os.environ.get("SESAME_SCHEMATHESIS_SEED"):
        command += ["--seed", seed]
    return command


def failures_section(log: str) -> str:
    """The FAILURES section of schemathesis's console log: each failure with a curl command."""
    start = log.find("=== FAILURES ===")
    if start < 0:
        return ""
    ends = [index for marker in ("=== ERRORS ===", "=== WARNINGS ===", "=== SUMMARY ===")
            if (index := log.find(marker, start)) > 0]
    return log[start:min(ends, default=len(log))]


# The operations that would take the run's own fixtures away (the signed-in user, the default
# application and its callbacks): they run in a pass of their own, after the others, against
# a user and an application made to be changed and deleted.
CHANGES = [
    "PATCH /api/v2/users/{id}", "DELETE /api/v2/users/{id}", "PATCH /api/v2/clients/{id}", "DELETE /api/v2/clients/{id}",
    "POST /api/v2/clients/{id}/rotate-secret", "DELETE /api/v2/users/{id}/sessions", "DELETE /api/v2/sessions/{id}",
    "DELETE /api/v2/users/{id}/refresh-tokens", "DELETE /api/v2/refresh-tokens/{id}",
]


def run_pass(command: list, log: Path, report: Path, cwd: Path, seconds: int) -> tuple[int, dict, str]:
    with open(log, "w") as output:
        process = subprocess.run(command, stdout=output, stderr=subprocess.STDOUT, timeout=seconds + 180, cwd=cwd)
    summary = json.loads(report.read_text()) if report.exists() else {}
    return process.returncode, summary, log.read_text(errors="replace")


@pytest.mark.sesame_env(**SERVER_ENV)
def test_schemathesis_against_a_live_server(sesame, tmp_path):
    report_dir = Path(os.environ.get("SESAME_SCHEMATHESIS_REPORT_DIR") or tmp_path / "schemathesis")
    report_dir.mkdir(parents=True, exist_ok=True)

    token = management_token(sesame)
    tokens = flows.sign_in(sesame, "schemathesis@example.com", scope=USER_SCOPES)
    access_token = tokens["access_token"]
    user_id = flows.userinfo(sesame, access_token).json()["sub"]
    welcome = sesame.issuer + "welcome"
    csrf = hosted_page_binding(sesame, welcome)
    # An application with iOS and Android identities, so the association files are not empty.
    sesame.cli_json(
        "admin", "apps", "create", "--name", "Mobile", "--ios-team-id", "ABCDE12345", "--ios-bundle-id",
        "com.example.app", "--android-package", "com.example.app", "--android-fingerprint", ":".join(["AB"] * 32))
    # What the second pass may change and delete.
    victim_app = sesame.cli_json("admin", "apps", "create", "--name", "Victim", "--callback", welcome)["client_id"]
    victim_tokens = flows.sign_in(sesame, "victim@example.com")
    victim_user = flows.userinfo(sesame, victim_tokens["access_token"]).json()["sub"]
    # Something for every list to show: a passkey, a browser session, a device key.
    passkey_token, passkey_id = passkey_user(sesame)
    session = browser_session(sesame, "schemathesis@example.com", welcome)
    session_id = requests.get(sesame.url("/me/sessions"), headers={"Authorization": f"Bearer {access_token}"},
                              timeout=10).json()[0]["id"]
    credential_id = device_credential(sesame, token, user_id)

    common = dict(access_token=access_token, passkey_token=passkey_token, client_ids=[sesame.client_id],
                  callbacks=[welcome], emails=["schemathesis@example.com"], csrf=csrf, session=session)
    passes = [
        ("main", max(10, MAX_TIME * 4 // 5), [user_id, sesame.client_id, passkey_id, session_id, credential_id],
         [argument for name in CHANGES for argument in ("--exclude-name", name)]),
        ("changes", max(10, MAX_TIME // 5), [victim_user, victim_app],
         [argument for name in CHANGES for argument in ("--include-name", name)]),
    ]
    results = []
    for name, seconds, ids, selection in passes:
        config = tmp_path / f"schemathesis-{name}.toml"
        write_config(config, ids=ids, **common)
        command = schemathesis_command(sesame, config, report_dir, token, name, seconds, selection)
        started = time.monotonic()
        code, summary, text = run_pass(
            command, report_dir / f"schemathesis-{name}.log", report_dir / f"schemathesis-{name}.json", tmp_path, seconds)
        print(f"schemathesis {name}: exit {code} after {time.monotonic() - started:.0f} s; reports in {report_dir}")
        print(json.dumps({key: summary.get(key) for key in ("operations", "test_cases", "failures", "errors")},
                         indent=2))
        results.append((name, code, summary, text))

    # The server must still be up and its logs must show no unhandled error.
    assert sesame.process.poll() is None, "the server died during the run\n" + sesame.logs()
    server_log = (sesame.data_dir / "server.stderr.log").read_text(errors="replace")
    unhandled = [line for line in server_log.splitlines() if "unhandled error" in line or " critical " in line]
    assert not unhandled, "the server logged unhandled errors:\n" + "\n".join(unhandled[:50])
    tested = sum(summary.get("operations", {}).get("tested", 0) for _, _, summary, _ in results)
    assert tested == len(documented_routes()), f"schemathesis tested {tested} of {len(documented_routes())} operations"
    problems = []
    for name, code, summary, text in results:
        if code == 0:
            continue
        failures = "\n".join(
            f"  {group['code']} {group['title']} ({group['count']}): {', '.join(group['operations'])}"
            for group in summary.get("failures", []))
        errors = "\n".join(f"  {group['title']} ({group['count']})" for group in summary.get("errors", []))
        problems.append(
            f"pass {name}: schemathesis exited {code} (full log: {report_dir}/schemathesis-{name}.log)\n"
            f"failures:\n{failures or '  none'}\nerrors:\n{errors or '  none'}\n\n"
            f"{failures_section(text)[:12000] or text[-4000:]}")
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)
