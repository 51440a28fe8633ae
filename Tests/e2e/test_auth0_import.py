"""End-to-end: Auth0's bulk users import, driven by auth0-python's ManagementClient, unmodified.

The client gets its own client_credentials token over TLS (a throwaway authority in
SSL_CERT_FILE, a TLS front for the server, as in test_auth0_management.py) and uploads a file
shaped as Auth0's export with ``jobs.users_imports.create``; it polls ``jobs.get`` until the
worker has run the job, reads the refused user with ``jobs.errors.get``, and every imported
email user then signs in with a code mailed through the SMTP sink and gets an id_token whose
``sub`` is their Auth0 ``user_id``. An export job (``jobs.users_exports.create``) then gives a
signed ``location`` from which its gzip file downloads without a token.
"""

from __future__ import annotations

import gzip
import json
import time

import pytest
import requests
from auth0.authentication.token_verifier import AsymmetricSignatureVerifier, TokenVerifier
from auth0.management import ManagementClient

from flows import code_in_mail, read_jsonl, start_code, tokens_for_code

SCOPES = ["read:users", "create:users", "read:connections"]

#: Users as Auth0's export job writes them (one of them taken before the import).
EMAIL_USERS = [
    {"user_id": "email|5f7c8ec7c33c6c004bbafe82", "email": "ana@example.com", "email_verified": True,
     "name": "Ana Lima", "given_name": "Ana", "family_name": "Lima", "nickname": "ana",
     "picture": "https://cdn.example.com/ana.png", "created_at": "2021-03-01T10:00:00.000Z",
     "logins_count": 12, "user_metadata": {"theme": "dark"}, "app_metadata": {"plan": "pro", "roles": ["admin"]}},
    {"user_id": "email|60a1b2c3d4e5f60718293a4b", "email": "bo@example.com", "email_verified": True,
     "blocked": False, "app_metadata": {"plan": "free"}},
    {"user_id": "email|60a1b2c3d4e5f60718293a4c", "email": "cy@example.com", "email_verified": True,
     "blocked": True},
    {"user_id": "email|60a1b2c3d4e5f60718293a4d", "email": "taken@example.com", "email_verified": True},
    {"user_id": "auth0|60a1b2c3d4e5f60718293a4e", "email": "dee@example.com", "email_verified": True,
     "identities": [{"connection": "Username-Password-Authentication", "provider": "auth0",
                     "user_id": "60a1b2c3d4e5f60718293a4e", "isSocial": False}]},
    {"user_id": "google-oauth2|104123456789012345678", "email": "eve@example.com", "email_verified": True,
     "given_name": "Eve", "picture": "https://lh3.googleusercontent.com/a/eve"},
]
SIGNING_IN = [user for user in EMAIL_USERS if not user.get("blocked") and user["email"] != "taken@example.com"]
SMS_USERS = [
    {"user_id": "sms|560ebaeef609ee1adaa7c551", "phone_number": "+15551230002", "phone_verified": True,
     "user_metadata": {"language": "pt"}},
]


def wait_for(api: ManagementClient, job_id: str, timeout: float = 15):
    """``jobs.get`` until the job is completed or failed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = api.jobs.get(job_id)
        if job.status in ("completed", "failed"):
            return job
        time.sleep(0.1)
    pytest.fail(f"job {job_id} did not finish")


def connection_ids(api: ManagementClient) -> dict:
    return {connection.name: connection.id for connection in api.connections.list()}


def test_import_job_over_tls_keeps_auth0_ids(sesame_factory, helper, tmp_path, monkeypatch):
    from tls_proxy import TLSProxy, make_certificates

    mail_log = tmp_path / "mail.jsonl"
    smtp_port = helper("smtp_sink.py", "--out", str(mail_log))
    authority, chain, key = make_certificates(tmp_path)
    proxy = TLSProxy(chain, key)
    try:
        domain = f"127.0.0.1:{proxy.port}"
        server = sesame_factory(env={
            "SESAME_ISSUER": f"https://{domain}/", "SESAME_EMAIL_PROVIDER": "smtp",
            "SESAME_EMAIL_SMTP_HOST": "127.0.0.1", "SESAME_EMAIL_SMTP_PORT": str(smtp_port),
            "SESAME_EMAIL_SMTP_SECURITY": "none", "SESAME_EMAIL_SMTP_FROM": "login@example.com"}, name="tls")
        proxy.backend_port = server.port
        monkeypatch.setenv("SSL_CERT_FILE", str(authority))
        operator_token = server.cli_json("admin", "tokens", "create", "--name", "op", "--all-scopes")["token"]
        admin = ManagementClient(domain=domain, token=operator_token)
        app = admin.clients.create(name="Importer", app_type="non_interactive")
        admin.client_grants.create(client_id=app.client_id, audience=f"https://{domain}/api/v2/", scope=SCOPES)
        api = ManagementClient(domain=domain, client_id=app.client_id, client_secret=app.client_secret)
        api.users.create(connection="email", email="taken@example.com", email_verified=True)
        connections = connection_ids(api)

        created = api.jobs.users_imports.create(
            users=("users.json", json.dumps(EMAIL_USERS).encode(), "application/json"),
            connection_id=connections["email"], external_id="move-1")
        assert created.id.startswith("job_") and created.type == "users_import" and created.status == "pending"
        assert created.connection_id == connections["email"] and created.external_id == "move-1"
        job = wait_for(api, created.id)
        assert job.status == "completed", job
        assert (job.summary.total, job.summary.inserted, job.summary.failed, job.summary.updated) == (6, 5, 1, 0)

        [refused] = api.jobs.errors.get(created.id)
        assert refused.user["email"] == "taken@example.com"
        assert [error.code for error in refused.errors] == ["DUPLICATED_USER"]

        sms = api.jobs.users_imports.create(
            users=("sms.json", json.dumps(SMS_USERS).encode(), "application/json"), connection_id=connections["sms"])
        assert wait_for(api, sms.id).summary.inserted == 1

        ana = api.users.get("email|5f7c8ec7c33c6c004bbafe82")
        assert (ana.email, ana.email_verified, ana.given_name, ana.picture) == (
            "ana@example.com", True, "Ana", "https://cdn.example.com/ana.png")
        assert ana.app_metadata == {"plan": "pro", "roles": ["admin"]} and ana.user_metadata == {"theme": "dark"}
        assert api.users.get("email|60a1b2c3d4e5f60718293a4c").blocked is True
        assert api.users.get("sms|560ebaeef609ee1adaa7c551").user_metadata == {"language": "pt"}
        dee = api.users.get("auth0|60a1b2c3d4e5f60718293a4e")
        assert dee.user_id == "auth0|60a1b2c3d4e5f60718293a4e" and dee.identities[0].provider == "auth0"

        export = api.jobs.users_exports.create(
            connection_id=connections["email"], format="json",
            fields=[{"name": "user_id"}, {"name": "email"}, {"name": "app_metadata.plan", "export_as": "plan"}])
        assert export.type == "users_export" and export.status == "pending"
        done = wait_for(api, export.id)
        assert done.status == "completed" and done.location.startswith(f"https://{domain}/api/v2/jobs/{export.id}/file?")
        download = requests.get(done.location, verify=str(authority), timeout=10)
        assert download.status_code == 200, download.text
        # Gzip as Auth0's, newline-delimited JSON inside.
        assert download.headers["Content-Type"] == "application/gzip"
        assert f'filename="{export.id}.json.gz"' in download.headers["Content-Disposition"]
        lines = [json.loads(line) for line in gzip.decompress(download.content).decode().splitlines()]
        assert {"user_id": "email|5f7c8ec7c33c6c004bbafe82", "email": "ana@example.com", "plan": "pro"} in lines
        assert {line["user_id"] for line in lines} >= {user["user_id"] for user in SIGNING_IN}
        forged = done.location.replace("signature=", "signature=0")
        assert requests.get(forged, verify=str(authority), timeout=10).status_code == 404

        csv_job = wait_for(api, api.jobs.users_exports.create(format="csv", fields=[{"name": "email"}]).id)
        csv_file = requests.get(csv_job.location, verify=str(authority), timeout=10)
        assert f'filename="{csv_job.id}.csv.gz"' in csv_file.headers["Content-Disposition"]
        rows = gzip.decompress(csv_file.content).decode().splitlines()
        assert rows[0] == "email" and "ana@example.com" in rows

        verifier = TokenVerifier(
            signature_verifier=AsymmetricSignatureVerifier(f"{server.base_url}/.well-known/jwks.json"),
            issuer=server.issuer, audience=server.client_id)
        for index, user in enumerate(SIGNING_IN):
            assert start_code(server, user["email"]).status_code == 200
            mail = read_jsonl(mail_log, index + 1)[index]
            tokens = tokens_for_code(server, user["email"], code_in_mail(mail))
            assert verifier.verify(tokens["id_token"])["sub"] == user["user_id"]
    finally:
        proxy.close()


def test_malformed_users_file_is_refused_with_its_place(sesame):
    """A file that is not a JSON array of user objects is refused whole (400, Auth0's error
    body) with the line and column of the fault, and no user is written."""
    token = sesame.cli_json("admin", "tokens", "create", "--name", "op", "--all-scopes")["token"]
    headers = {"Authorization": f"Bearer {token}"}
    email_id = requests.get(sesame.url("/api/v2/connections?name=email"), headers=headers, timeout=10).json()[0]["id"]
    files = {
        "not JSON": b'[\n  {"email": "ana@example.com"},\n  {"email": tru}\n]',
        "not an array": b'{"email": "ana@example.com"}',
        "unclosed": b'[{"email": "ana@example.com"},\n {"email": "bo@example.com"',
        "a user that is no object": b'[{"email": "ana@example.com"}, 7]',
    }
    for name, body in files.items():
        response = requests.post(
            sesame.url("/api/v2/jobs/users-imports"), headers=headers, timeout=10,
            files={"users": ("users.json", body, "application/json")}, data={"connection_id": email_id})
        assert response.status_code == 400, (name, response.text)
        assert response.json()["errorCode"] == "invalid_request" and "line " in response.json()["message"], name
    assert "line 3, column 3" in requests.post(
        sesame.url("/api/v2/jobs/users-imports"), headers=headers, timeout=10,
        files={"users": ("users.json", files["not JSON"], "application/json")},
        data={"connection_id": email_id}).json()["message"]
    assert requests.get(sesame.url("/api/v2/users"), headers=headers, timeout=10).json() == []


def test_cli_creates_imports_and_exports_users(sesame, tmp_path):
    """``sesame admin users create``, ``import FILE --json`` (the same import, run here, its
    summary and refused users) and ``export --format csv --output FILE``."""
    created = sesame.cli_json("admin", "users", "create", "--email", "ana@example.com",
                              "--user-id", "auth0|5f7c8ec7c33c6c004bbafe82", "--verified")
    assert created["user_id"] == "auth0|5f7c8ec7c33c6c004bbafe82"
    users = tmp_path / "users.json"
    users.write_text(json.dumps(EMAIL_USERS[1:3] + [{"email": "ana@example.com"}]))
    report = sesame.cli_json("admin", "users", "import", str(users))
    assert (report["status"], report["inserted"], report["failed"], report["total"]) == ("completed", 2, 1, 3)
    assert [error["errors"][0]["code"] for error in report["errors"]] == ["DUPLICATED_USER"]
    plain = sesame.cli("admin", "users", "import", str(users), "--upsert").stdout
    assert "completed: 0 inserted, 3 updated, 0 failed of 3" in plain

    output = tmp_path / "users.csv"
    sesame.cli("admin", "users", "export", "--format", "csv", "--output", str(output))
    rows = output.read_text().splitlines()
    assert rows[0].startswith("user_id,email,") and len(rows) == 4
    assert any(row.startswith("auth0|5f7c8ec7c33c6c004bbafe82,ana@example.com,") for row in rows)

    # A name ending in .gz gets the gzip file the export job serves; any other name plain text.
    packed = tmp_path / "users.json.gz"
    sesame.cli("admin", "users", "export", "--output", str(packed))
    exported = [json.loads(line) for line in gzip.decompress(packed.read_bytes()).decode().splitlines()]
    assert len(exported) == 3 and "auth0|5f7c8ec7c33c6c004bbafe82" in {user["user_id"] for user in exported}
