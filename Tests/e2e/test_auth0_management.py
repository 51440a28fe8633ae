"""End-to-end: auth0-python's Management API client, unmodified, against Sesame.

A team moving from Auth0 keeps its back-end code: a machine-to-machine application gets a
token with ``GetToken(...).client_credentials(audience)`` and hands it to
``ManagementClient``, which creates users with their Auth0 ids, manages applications and
client grants, reads paged logs and connections.

``ManagementClient`` always builds ``https://{domain}/api/v2``; the test server listens on
plain http on loopback. Most tests hand the client an ``httpx_client`` (a documented parameter)
whose transport sends each request to the same host and path over http; ``GetToken`` takes
``protocol="http"`` itself. The last test puts a TLS front before the server (``tls_proxy``)
and uses nothing but ``ManagementClient(domain, client_id, client_secret)``, which then fetches
its own token. Nothing of the SDK is changed.
"""

from __future__ import annotations

import httpx
import pytest
from auth0.authentication import GetToken
from auth0.authentication.exceptions import Auth0Error
from auth0.authentication.token_verifier import AsymmetricSignatureVerifier, TokenVerifier
from auth0.management import ManagementClient
from auth0.management.core.api_error import ApiError

from flows import refresh, sign_in, userinfo

AUTH0_USER_ID = "email|5f7c8ec7c33c6c004bbafe82"


class PlainHTTP(httpx.HTTPTransport):
    """Sends the SDK's ``https://127.0.0.1:PORT/…`` requests to the same place over http."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.url = request.url.copy_with(scheme="http")
        return super().handle_request(request)


def management(sesame, token: str) -> ManagementClient:
    return ManagementClient(domain=sesame.domain, token=token, httpx_client=httpx.Client(transport=PlainHTTP()))


def audience(sesame) -> str:
    """The Management API's identifier: ``{issuer}api/v2/`` (Auth0: ``https://{domain}/api/v2/``)."""
    return sesame.issuer + "api/v2/"


def operator(sesame) -> ManagementClient:
    """The operator's client, with a static token from ``sesame admin tokens create``."""
    token = sesame.cli_json("admin", "tokens", "create", "--name", "operator", "--all-scopes")["token"]
    return management(sesame, token)


def machine_client(sesame, scopes: list[str]) -> tuple[str, str]:
    """A machine-to-machine application with a client grant of ``scopes``, made through the SDK."""
    admin = operator(sesame)
    app = admin.clients.create(
        name="Backend", app_type="non_interactive", grant_types=["client_credentials"],
        token_endpoint_auth_method="client_secret_post",
    )
    assert app.client_secret and app.token_endpoint_auth_method == "client_secret_post"
    grant = admin.client_grants.create(client_id=app.client_id, audience=audience(sesame), scope=scopes)
    assert grant.id.startswith("cgr_") and list(grant.scope) == scopes
    return app.client_id, app.client_secret


def machine_token(sesame, client_id: str, secret: str, scope: str | None = None) -> str:
    """GetToken.client_credentials; with ``scope``, the same request through the SDK's own
    ``authenticated_post`` (client_credentials sends no scope)."""
    token = GetToken(sesame.domain, client_id, client_secret=secret, protocol="http")
    if scope is None:
        return token.client_credentials(audience(sesame))["access_token"]
    body = {"client_id": client_id, "audience": audience(sesame), "grant_type": "client_credentials", "scope": scope}
    return token.authenticated_post(f"{sesame.base_url}/oauth/token", data=body)["access_token"]


ALL_SCOPES = ["read:users", "create:users", "update:users", "read:clients", "create:clients", "update:clients",
              "update:client_keys", "read:client_grants", "create:client_grants", "update:client_grants", "read:logs",
              "read:connections"]


def test_machine_token_by_client_credentials_is_an_auth0_jwt(sesame):
    """GetToken.client_credentials gives an RS256 JWT with Auth0's claims (checked against the
    JWKS with PyJWT), which ManagementClient then uses."""
    import jwt

    client_id, secret = machine_client(sesame, ["read:users", "read:logs"])
    response = GetToken(sesame.domain, client_id, client_secret=secret, protocol="http").client_credentials(
        audience(sesame))
    assert response["token_type"] == "Bearer" and response["expires_in"] > 0
    assert response["scope"] == "read:users read:logs" and "id_token" not in response
    keys = jwt.PyJWKClient(f"{sesame.base_url}/.well-known/jwks.json")
    key = keys.get_signing_key_from_jwt(response["access_token"])
    claims = jwt.decode(response["access_token"], key.key, algorithms=["RS256"], audience=audience(sesame),
                        issuer=sesame.issuer)
    assert claims["sub"] == f"{client_id}@clients" and claims["azp"] == client_id
    assert claims["gty"] == "client-credentials" and claims["scope"] == "read:users read:logs"
    assert isinstance(claims["iat"], int) and claims["exp"] - claims["iat"] == response["expires_in"]
    users = list(management(sesame, response["access_token"]).users.list())
    assert users == []


def test_user_created_with_auth0_id_signs_in_with_that_sub(sesame):
    """users.create with an Auth0 user_id, then an email-code login: the id_token's sub is that
    user_id, checked by auth0-python's TokenVerifier."""
    client_id, secret = machine_client(sesame, ALL_SCOPES)
    api = management(sesame, machine_token(sesame, client_id, secret))
    created = api.users.create(
        connection="email", email="ana@example.com", email_verified=True, user_id=AUTH0_USER_ID,
        given_name="Ana", family_name="Lima", name="Ana Lima", app_metadata={"plan": "pro"},
    )
    assert created.user_id == AUTH0_USER_ID and created.given_name == "Ana"

    tokens = sign_in(sesame, "ana@example.com", scope="openid profile email")
    verifier = TokenVerifier(
        signature_verifier=AsymmetricSignatureVerifier(f"{sesame.base_url}/.well-known/jwks.json"),
        issuer=sesame.issuer, audience=sesame.client_id)
    claims = verifier.verify(tokens["id_token"])
    assert claims["sub"] == AUTH0_USER_ID and claims["email"] == "ana@example.com"

    fetched = api.users.get(AUTH0_USER_ID)
    assert fetched.logins_count == 1 and fetched.app_metadata == {"plan": "pro"}
    updated = api.users.update(AUTH0_USER_ID, email="ana@new.example", email_verified=True)
    assert updated.email == "ana@new.example" and updated.email_verified
    moved = verifier.verify(sign_in(sesame, "ana@new.example", scope="openid email")["id_token"])
    assert moved["sub"] == AUTH0_USER_ID, "the new address signs in as the same user"


def test_user_id_that_collides_is_409(sesame):
    """Attack: an import names a user_id (or address) someone already has: 409 in Auth0's
    error shape, and no second account."""
    client_id, secret = machine_client(sesame, ALL_SCOPES)
    api = management(sesame, machine_token(sesame, client_id, secret))
    api.users.create(connection="email", email="ana@example.com", user_id=AUTH0_USER_ID)
    with pytest.raises(ApiError) as taken_id:
        api.users.create(connection="sms", phone_number="+15551230001", user_id="sms|5f7c8ec7c33c6c004bbafe82")
    assert taken_id.value.status_code == 409
    body = taken_id.value.body
    assert body["statusCode"] == 409 and body["error"] == "Conflict" and body["errorCode"] == "user_exists"
    assert body["message"] == body["error_description"]
    with pytest.raises(ApiError) as taken_address:
        api.users.create(connection="email", email="ANA@example.com")
    assert taken_address.value.status_code == 409
    assert [user.user_id for user in api.users.list()] == [AUTH0_USER_ID]


def test_machine_token_asking_for_a_scope_its_grant_does_not_allow(sesame):
    """Attack: a machine client asks for more than its client grant allows, or uses its token
    for a route its scopes do not cover."""
    client_id, secret = machine_client(sesame, ["read:users"])
    with pytest.raises(Auth0Error) as wider:
        machine_token(sesame, client_id, secret, scope="read:users delete:users")
    assert (wider.value.status_code, wider.value.error_code) == (403, "access_denied")
    assert wider.value.message == "Client has not been granted scopes: delete:users"
    api = management(sesame, machine_token(sesame, client_id, secret))
    with pytest.raises(ApiError) as refused:
        list(api.logs.list())
    assert refused.value.status_code == 403 and refused.value.body["errorCode"] == "insufficient_scope"


def test_client_credentials_refusals_say_what_auth0_says(sesame):
    """Attack: a machine client without a client grant, for another audience, or with a
    wrong secret gets no token, with Auth0's errors."""
    admin = operator(sesame)
    app = admin.clients.create(name="No grant", app_type="non_interactive")
    token = GetToken(sesame.domain, app.client_id, client_secret=app.client_secret, protocol="http")
    with pytest.raises(Auth0Error) as no_grant:
        token.client_credentials(audience(sesame))
    assert (no_grant.value.status_code, no_grant.value.error_code) == (403, "access_denied")
    assert no_grant.value.message == f"Client has not been authorized to access resource server {audience(sesame)}"
    with pytest.raises(Auth0Error) as unknown:
        token.client_credentials("https://api.example.com/")
    assert unknown.value.message == "Service not found: https://api.example.com/"
    wrong = GetToken(sesame.domain, app.client_id, client_secret="wrong", protocol="http")
    with pytest.raises(Auth0Error) as bad_secret:
        wrong.client_credentials(audience(sesame))
    assert (bad_secret.value.status_code, bad_secret.value.error_code, bad_secret.value.message) == (
        401, "access_denied", "Unauthorized")


def test_clients_grant_types_and_rotate_secret(sesame):
    """clients.create/update with grant_types and token_endpoint_auth_method, a paged list,
    and rotate_secret, after which the old secret gets no token."""
    client_id, secret = machine_client(sesame, ALL_SCOPES)
    api = management(sesame, machine_token(sesame, client_id, secret))
    web = api.clients.create(name="Shop", app_type="regular_web", callbacks=["https://shop.example.com/cb"],
                             grant_types=["authorization_code", "refresh_token"],
                             token_endpoint_auth_method="client_secret_basic")
    assert web.token_endpoint_auth_method == "client_secret_basic" and list(web.grant_types) == [
        "authorization_code", "refresh_token"]
    updated = api.clients.update(web.client_id, grant_types=["authorization_code"],
                                 token_endpoint_auth_method="client_secret_post")
    assert list(updated.grant_types) == ["authorization_code"]
    assert updated.token_endpoint_auth_method == "client_secret_post"
    pager = api.clients.list(per_page=2)
    assert pager.response.total == 3 and len(pager.items) == 2
    assert {client.client_id for client in api.clients.list(per_page=1)} >= {client_id, web.client_id}

    rotated = api.clients.rotate_secret(client_id)
    assert rotated.client_secret and rotated.client_secret != secret
    with pytest.raises(Auth0Error) as old:
        GetToken(sesame.domain, client_id, client_secret=secret, protocol="http").client_credentials(audience(sesame))
    assert old.value.status_code == 401
    assert machine_token(sesame, client_id, rotated.client_secret)


def test_client_grants_logs_and_connections(sesame):
    """client_grants.list/update/delete, logs paged with totals and one log by id (search=),
    user logs, and the email and sms connections with their ids."""
    client_id, secret = machine_client(sesame, ALL_SCOPES)
    api = management(sesame, machine_token(sesame, client_id, secret))
    grants = list(api.client_grants.list(client_id=client_id))
    assert [grant.audience for grant in grants] == [audience(sesame)]
    assert api.client_grants.get(grants[0].id).client_id == client_id
    sign_in(sesame, "bo@example.com")

    pager = api.logs.list(per_page=2)
    assert pager.response.total >= 3 and len(pager.items) == 2
    first = pager.items[0]
    assert api.logs.get(first.log_id).log_id == first.log_id
    logins = list(api.logs.list(search='type:"s"'))
    assert logins and all(log.type == "s" for log in logins)
    user_id = logins[0].user_id
    mine = list(api.users.logs.list(user_id))
    assert mine and all(log.user_id == user_id for log in mine)
    machine = list(api.logs.list(search='type:"seccft"'))
    assert machine and machine[0].client_id == client_id

    connections = {connection.name: connection for connection in api.connections.list()}
    assert set(connections) == {"email", "sms"}
    assert all(connection.id.startswith("con_") for connection in connections.values())
    assert api.connections.get(connections["sms"].id).strategy == "sms"

    narrowed = api.client_grants.update(grants[0].id, scope=["read:users"])
    assert list(narrowed.scope) == ["read:users"]
    with pytest.raises(ApiError) as gone:
        list(api.logs.list())
    assert gone.value.status_code == 403, "narrowing the grant narrows the token at once"
    operator(sesame).client_grants.delete(grants[0].id)
    with pytest.raises(ApiError) as ended:
        list(api.users.list())
    assert ended.value.status_code == 401 and ended.value.body["error"] == "Unauthorized"


def test_refresh_tokens_sessions_and_device_credentials(sesame):
    """Attack: a stolen refresh token still working after an operator revoked it through
    ManagementClient. The user's refresh tokens, sessions and device credentials are read with
    the machine token too."""
    client_id, secret = machine_client(sesame, ["read:users", "read:refresh_tokens", "delete:refresh_tokens",
                                                "read:sessions", "read:device_credentials"])
    api = management(sesame, machine_token(sesame, client_id, secret))
    tokens = sign_in(sesame, "cy@example.com", scope="openid offline_access")
    user_id = userinfo(sesame, tokens["access_token"]).json()["sub"]

    refresh_tokens = list(api.users.refresh_token.list(user_id))
    assert len(refresh_tokens) == 1 and refresh_tokens[0].client_id == sesame.client_id
    assert api.refresh_tokens.get(refresh_tokens[0].id).user_id == user_id
    api.refresh_tokens.delete(refresh_tokens[0].id)
    assert refresh(sesame, tokens["refresh_token"]).status_code == 403, "the revoked refresh token is dead"
    assert list(api.users.refresh_token.list(user_id)) == []

    assert list(api.users.sessions.list(user_id)) == [], "a code login through the API opens no browser session"
    assert list(api.device_credentials.list(user_id=user_id)) == []


def test_management_client_over_tls_gets_and_renews_its_own_token(sesame_factory, tmp_path, monkeypatch):
    """The issue's end state, with nothing but ManagementClient(domain, client_id,
    client_secret): over TLS (a throwaway authority in SSL_CERT_FILE, a TLS front for the
    server), the SDK fetches its own client_credentials token for https://{domain}/api/v2/
    and manages users with it."""
    from tls_proxy import TLSProxy, make_certificates

    authority, chain, key = make_certificates(tmp_path)
    proxy = TLSProxy(chain, key)
    try:
        domain = f"127.0.0.1:{proxy.port}"
        server = sesame_factory(env={"SESAME_ISSUER": f"https://{domain}/"}, name="tls")
        proxy.backend_port = server.port
        monkeypatch.setenv("SSL_CERT_FILE", str(authority))
        operator_token = server.cli_json("admin", "tokens", "create", "--name", "op", "--all-scopes")["token"]
        admin = ManagementClient(domain=domain, token=operator_token)
        app = admin.clients.create(name="Backend", app_type="non_interactive")
        admin.client_grants.create(client_id=app.client_id, audience=f"https://{domain}/api/v2/",
                                   scope=["read:users", "create:users"])

        api = ManagementClient(domain=domain, client_id=app.client_id, client_secret=app.client_secret)
        created = api.users.create(connection="sms", phone_number="+15551230002",
                                   user_id="sms|560ebaeef609ee1adaa7c551", phone_verified=True)
        assert created.user_id == "sms|560ebaeef609ee1adaa7c551"
        assert [user.user_id for user in api.users.list()] == [created.user_id]
        with pytest.raises(ApiError) as refused:
            list(api.logs.list())
        assert refused.value.status_code == 403 and refused.value.body["errorCode"] == "insufficient_scope"
    finally:
        proxy.close()
