"""End-to-end: APIs, roles and permissions, and the RFC 9068 access tokens they shape.

An operator's back end drives auth0-python's ``ManagementClient`` (unmodified, with a
``client_credentials`` token as in ``test_auth0_management``): it creates an API with
permissions, a role granting one of them, and assigns the role to a user. A passwordless login
asking for that API's ``audience`` then gets a JWT access token that authlib's RFC 9068
``JWTBearerTokenValidator`` (behind a ``ResourceProtector``) accepts, with the role's
``permissions``; the same validator for another API refuses it. A machine client gets one too.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import secrets
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from auth0.authentication import GetToken
from auth0.management import ManagementClient
from authlib.oauth2.rfc6749 import ResourceProtector
from authlib.oauth2.rfc6749.requests import JsonRequest
from authlib.oauth2.rfc6750.errors import InsufficientScopeError, InvalidTokenError
from authlib.oauth2.rfc9068 import JWTBearerTokenValidator
from joserfc.jwk import KeySet

from flows import exchange_code, management_client as management, refresh, sign_in, start_code

API = "https://orders.example.com"
SCOPE = "openid read:orders write:orders offline_access"
OPERATOR_SCOPES = [
    "read:users", "update:users", "create:clients", "create:client_grants", "read:resource_servers",
    "create:resource_servers", "update:resource_servers", "read:roles", "create:roles", "update:roles",
    "read:role_members", "create:role_members", "delete:role_members",
]


def machine_application(api: ManagementClient, audience: str, scopes: list[str]) -> tuple[str, str]:
    """A machine-to-machine application with a client grant of ``scopes`` for ``audience``."""
    app = api.clients.create(name="Backend", app_type="non_interactive", grant_types=["client_credentials"],
                             token_endpoint_auth_method="client_secret_post")
    api.client_grants.create(client_id=app.client_id, audience=audience, scope=scopes)
    return app.client_id, app.client_secret


def machine_token(sesame, client_id: str, secret: str, audience: str) -> str:
    return GetToken(sesame.domain, client_id, client_secret=secret, protocol="http").client_credentials(
        audience)["access_token"]


def operator(sesame) -> ManagementClient:
    """The operator's back end: a machine client of the Management API, set up once from the CLI."""
    token = sesame.cli_json("admin", "tokens", "create", "--name", "setup", "--all-scopes")["token"]
    client_id, secret = machine_application(management(sesame, token), sesame.issuer + "api/v2/", OPERATOR_SCOPES)
    return management(sesame, machine_token(sesame, client_id, secret, sesame.issuer + "api/v2/"))


def protector(sesame, resource_server: str = API) -> ResourceProtector:
    """What the API runs: authlib's RFC 9068 validator with Sesame's JWKS."""

    class Validator(JWTBearerTokenValidator):
        def get_jwks(self):
            return KeySet.import_key_set(requests.get(sesame.url("/.well-known/jwks.json"), timeout=10).json())

    protect = ResourceProtector()
    protect.register_token_validator(Validator(issuer=sesame.issuer, resource_server=resource_server))
    return protect


def accepted(sesame, token: str, scopes: list[str] | None = None, resource_server: str = API) -> dict:
    """The claims of ``token`` once the API's ResourceProtector accepted it for ``scopes``."""
    request = JsonRequest("GET", f"{API}/orders", headers={"Authorization": f"Bearer {token}"})
    return dict(protector(sesame, resource_server).validate_request(scopes or [], request))


def header(token: str) -> dict:
    part = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def subject(tokens: dict) -> str:
    part = tokens["id_token"].split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))["sub"]


def orders_api(api: ManagementClient):
    """The Orders API with RBAC and the permissions dialect, and a role granting read:orders."""
    created = api.resource_servers.create(
        identifier=API, name="Orders", enforce_policies=True, token_dialect="access_token_authz",
        allow_offline_access=True, token_lifetime=900,
        scopes=[{"value": "read:orders", "description": "Read orders"}, {"value": "write:orders"}])
    assert created.identifier == API and created.token_dialect == "access_token_authz"
    listed = list(api.resource_servers.list())
    # Auth0 lists its Management API first, as a system API.
    assert [(a.identifier == API, a.is_system) for a in listed] == [(False, True), (True, False)]
    role = api.roles.create(name="reader", description="Reads orders")
    api.roles.permissions.add(role.id, permissions=[
        {"resource_server_identifier": API, "permission_name": "read:orders"}])
    assert [p.permission_name for p in api.roles.permissions.list(role.id)] == ["read:orders"]
    return role


def test_role_permissions_reach_the_access_token_an_api_accepts(sesame):
    """ManagementClient creates the API and a role and assigns it; the login for the API's
    audience gets an at+jwt token the API's RFC 9068 validator accepts with the role's
    permissions; asking for write:orders gives no write:orders."""
    api = operator(sesame)
    role = orders_api(api)
    user_id = subject(sign_in(sesame, "ana@example.com"))
    api.users.roles.assign(user_id, roles=[role.id])
    assert [r.name for r in api.users.roles.list(user_id)] == ["reader"]
    assert [u.user_id for u in api.roles.users.list(role.id)] == [user_id]
    assert [p.permission_name for p in api.users.permissions.list(user_id)] == ["read:orders"]

    tokens = sign_in(sesame, "ana@example.com", scope=SCOPE, audience=API)
    assert header(tokens["access_token"])["typ"] == "at+jwt"
    claims = accepted(sesame, tokens["access_token"], ["read:orders"])
    assert claims["permissions"] == ["read:orders"] and claims["sub"] == user_id
    assert claims["scope"] == "openid read:orders offline_access" == tokens["scope"]
    assert claims["aud"] == [API, sesame.issuer + "userinfo"] and claims["client_id"] == sesame.client_id
    assert claims["exp"] - claims["iat"] == 900 == tokens["expires_in"]

    # Attack: a token for one API presented to another; and one lacking the permission asked.
    with pytest.raises(InvalidTokenError):
        accepted(sesame, tokens["access_token"], resource_server="https://billing.example.com")
    with pytest.raises(InsufficientScopeError):
        accepted(sesame, tokens["access_token"], ["write:orders"])

    # The role taken away: the next refresh carries no permission.
    api.users.roles.delete(user_id, roles=[role.id])
    renewed = refresh(sesame, tokens["refresh_token"])
    assert renewed.status_code == 200, renewed.text
    assert accepted(sesame, renewed.json()["access_token"])["permissions"] == []


class Forms(HTMLParser):
    """The fields of each form of a page, by the form's action."""

    def __init__(self, html: str):
        super().__init__()
        self.forms: dict[str, dict[str, str]] = {}
        self.current: dict[str, str] | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.current = self.forms.setdefault(attrs.get("action", ""), {})
        elif tag == "input" and self.current is not None and attrs.get("name"):
            self.current.setdefault(attrs["name"], attrs.get("value") or "")

    def handle_endtag(self, tag):
        if tag == "form":
            self.current = None


def test_single_page_app_gets_the_web_lifetime_through_the_hosted_page(sesame):
    """The SPA flow: /authorize with the API's audience and PKCE, the hosted page's code form
    (posted as the page's own form would be), the code exchanged by the public client: an
    access token for the API living token_lifetime_for_web, accepted by the API."""
    api = operator(sesame)
    role = orders_api(api)
    # auth0-python has no token_lifetime_for_web; the operator's CLI sets it.
    updated = sesame.cli_json("admin", "apis", "update", API, "--token-lifetime-for-web", "300")
    assert updated["token_lifetime_for_web"] == 300 and updated["token_lifetime"] == 900
    callback = "https://spa.example.com/callback"
    spa = api.clients.create(name="SPA", app_type="spa", callbacks=[callback])
    user_id = subject(sign_in(sesame, "spa@example.com"))
    api.users.roles.assign(user_id, roles=[role.id])

    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    browser = requests.Session()
    page = browser.get(sesame.url("/authorize"), params={
        "response_type": "code", "client_id": spa.client_id, "redirect_uri": callback, "state": "st",
        "scope": "openid read:orders", "audience": API, "code_challenge": challenge,
        "code_challenge_method": "S256", "connection": "email"}, timeout=10)
    assert page.status_code == 200, page.text
    start = Forms(page.text).forms["/authorize/start"]
    sent = browser.post(sesame.url("/authorize/start"), data={**start, "username": "spa@example.com"}, timeout=10)
    assert sent.status_code == 200, sent.text
    verify = Forms(sent.text).forms["/authorize/verify"]
    offer = browser.post(sesame.url("/authorize/verify"), data={**verify, "otp": sesame.last_code("spa@example.com")},
                         timeout=10)
    # The page offers a passkey; "not now" continues to /authorize, which the new browser
    # session answers with the code.
    resume = html.unescape(re.search(r'data-continue="([^"]+)"', offer.text).group(1))
    answer = browser.get(sesame.url(resume), allow_redirects=False, timeout=10)
    assert answer.status_code in (302, 303), answer.text
    query = parse_qs(urlsplit(answer.headers["Location"]).query)
    assert query["state"] == ["st"], query
    tokens = requests.post(sesame.url("/oauth/token"), json={
        "grant_type": "authorization_code", "client_id": spa.client_id, "code": query["code"][0],
        "redirect_uri": callback, "code_verifier": verifier}, timeout=10).json()
    claims = accepted(sesame, tokens["access_token"], ["read:orders"])
    assert claims["exp"] - claims["iat"] == 300 == tokens["expires_in"]
    assert claims["permissions"] == ["read:orders"] and claims["client_id"] == spa.client_id


def test_unknown_audience_is_refused_as_auth0_does(sesame):
    """Attack: a client names an audience no API has, to get a token some service might take."""
    start_code(sesame, "eve@example.com")
    response = exchange_code(sesame, "eve@example.com", sesame.last_code("eve@example.com"),
                             audience="https://nowhere.example.com")
    assert response.status_code == 403, response.text
    assert response.json() == {"error": "access_denied",
                               "error_description": "Service not found: https://nowhere.example.com"}


def test_machine_client_gets_an_access_token_for_the_api(sesame):
    """client_credentials for the API, through the machine client's grant for it: an at+jwt
    token the API accepts, whose permissions are the granted scopes."""
    api = operator(sesame)
    orders_api(api)
    client_id, secret = machine_application(api, API, ["read:orders"])
    token = machine_token(sesame, client_id, secret, API)
    assert header(token)["typ"] == "at+jwt"
    claims = accepted(sesame, token, ["read:orders"])
    assert claims["sub"] == f"{client_id}@clients" and claims["permissions"] == ["read:orders"]
    assert claims["gty"] == "client-credentials" and claims["client_id"] == client_id


def test_the_operator_cli_sets_up_the_same(sesame):
    """sesame admin apis and roles: an API, a role granting a permission, assigned by email
    address; the login for the API gets it, and loses it once the role is unassigned."""
    api = sesame.cli_json("admin", "apis", "create", API, "--name", "Orders", "--scope", "read:orders=Read orders",
                          "write:orders", "--enforce-policies", "true", "--token-dialect", "access_token_authz")
    assert [s["value"] for s in api["scopes"]] == ["read:orders", "write:orders"] and api["enforce_policies"]
    role = sesame.cli_json("admin", "roles", "create", "reader")
    sesame.cli("admin", "roles", "grant", "reader", API, "read:orders")
    sign_in(sesame, "cli@example.com")
    sesame.cli("admin", "roles", "assign", role["id"], "cli@example.com")
    tokens = sign_in(sesame, "cli@example.com", scope=SCOPE, audience=API)
    assert accepted(sesame, tokens["access_token"])["permissions"] == ["read:orders"]
    sesame.cli("admin", "roles", "unassign", "reader", "cli@example.com")
    tokens = sign_in(sesame, "cli@example.com", scope=SCOPE, audience=API)
    assert accepted(sesame, tokens["access_token"])["permissions"] == []
    assert [r["name"] for r in sesame.cli_json("admin", "roles", "list")] == ["reader"]
    assert [a["identifier"] for a in sesame.cli_json("admin", "apis", "list")] == [API]
