"""Streamable-HTTP bearer auth, end to end: real JWTs, real uvicorn on 127.0.0.1, real clients."""

from __future__ import annotations

import asyncio
import logging
import time

import httpx2 as httpx  # fastmcp 4 ships httpx2 (the httpx API); plain httpx is not installed
import jwt
import pytest
from fastmcp import Client, FastMCP
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp.server.auth import AccessToken
from fastmcp.server.dependencies import get_access_token
from http_helpers import serve_asgi
from jwt_helpers import make_keypair, make_token, public_jwk
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from memgate.manager.errors import AccessDenied, ConfigError
from memgate.server.auth import add_health_route, build_auth, identity_from_access_token
from memgate.server.auth_settings import HttpAuthSettings

ISSUER = "https://idp.example.test"
AUDIENCE = "memgate-test"
PUBLIC_URL = "https://memgate.example.test"
MODERN = "2026-07-28"


def claims(**overrides):
    """A valid claim set; an override of None removes that claim."""
    now = int(time.time())
    base = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "user-ann",
        "tenant": "acme",
        "agent": "helper",
        "roles": ["reader", "editor"],
        "scope": "memory:read memory:write",
        "iat": now,
        "exp": now + 300,
    }
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


def build_server(settings: HttpAuthSettings) -> FastMCP:
    mcp = FastMCP("auth-test", auth=build_auth(settings, "http://127.0.0.1"))
    add_health_route(mcp)

    @mcp.tool
    def whoami() -> dict:
        identity = identity_from_access_token(get_access_token(), settings)
        return {
            "tenant": identity.tenant,
            "user": identity.user,
            "agent": identity.agent,
            "principal": identity.principal,
            "scopes": sorted(identity.scopes),
            "roles": sorted(identity.roles),
        }

    return mcp


def post_mcp(base_url: str, token: str | None, method: str = "tools/list", params=None):
    """One raw stateless (2026-07-28) MCP request."""
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": method,
    }
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    params = dict(params or {})
    if method == "tools/call":
        headers["Mcp-Name"] = params["name"]
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "httpx", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(f"{base_url}/mcp", headers=headers, json=body, timeout=10)


@pytest.fixture(scope="module")
def keys():
    return make_keypair()


@pytest.fixture(scope="module")
def settings(keys):
    return HttpAuthSettings(
        issuer=ISSUER,
        audience=AUDIENCE,
        public_key=keys.public_pem,
        required_scopes=["memory:read"],
        resource_url=PUBLIC_URL,
    )


@pytest.fixture(scope="module")
def base_url(settings):
    with serve_asgi(build_server(settings).http_app()) as url:
        yield url


def test_request_without_token_is_401_with_a_bearer_challenge(base_url):
    response = post_mcp(base_url, None)
    assert response.status_code == 401
    # RFC 6750 §3.1: no credentials -> a challenge without an error attribute.
    assert response.headers["www-authenticate"] == (
        f'Bearer scope="memory:read", resource_metadata="{PUBLIC_URL}/.well-known/oauth-protected-resource/mcp"'
    )


@pytest.mark.parametrize(
    "case",
    [
        "garbage",
        "wrong_signing_key",
        "expired",
        "wrong_audience",
        "wrong_issuer",
        "missing_tenant",
        "empty_tenant",
        "missing_exp",
        "not_yet_valid",
        "unsigned",
    ],
)
def test_invalid_token_is_401_invalid_token(base_url, keys, case):
    other_key = make_keypair().private_pem
    now = int(time.time())
    token = {
        "garbage": "not-a-jwt",
        "wrong_signing_key": make_token(other_key, **claims()),
        "expired": make_token(keys.private_pem, **claims(iat=now - 600, exp=now - 300)),
        "wrong_audience": make_token(keys.private_pem, **claims(aud="someone-else")),
        "wrong_issuer": make_token(keys.private_pem, **claims(iss="https://evil.example.test")),
        "missing_tenant": make_token(keys.private_pem, **claims(tenant=None)),
        "empty_tenant": make_token(keys.private_pem, **claims(tenant="")),
        "missing_exp": make_token(keys.private_pem, **claims(exp=None)),
        "not_yet_valid": make_token(keys.private_pem, **claims(nbf=now + 600)),
        "unsigned": jwt.encode(claims(), None, algorithm="none"),
    }[case]
    response = post_mcp(base_url, token)
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith('Bearer error="invalid_token", ')
    assert 'scope="memory:read"' in challenge
    assert response.json()["error"] == "invalid_token"


def test_missing_tenant_claim_is_logged_with_the_reason(base_url, keys, caplog):
    token = make_token(keys.private_pem, **claims(tenant=None, sub="bob"))
    with caplog.at_level(logging.WARNING, logger="memgate.server.auth"):
        assert post_mcp(base_url, token).status_code == 401
    assert "Bearer token rejected for client bob: missing or empty tenant claim 'tenant'" in (caplog.messages)


def test_valid_token_without_required_scope_is_403_insufficient_scope(base_url, keys):
    token = make_token(keys.private_pem, **claims(scope="memory:write"))
    response = post_mcp(base_url, token)
    assert response.status_code == 403
    assert response.headers["www-authenticate"] == (
        'Bearer error="insufficient_scope", error_description="Required scope: memory:read", '
        'scope="memory:read", '
        f'resource_metadata="{PUBLIC_URL}/.well-known/oauth-protected-resource/mcp"'
    )
    assert response.json() == {
        "error": "insufficient_scope",
        "error_description": "Required scope: memory:read",
    }


def test_valid_token_calls_the_tool_as_the_tenant_in_its_claims(base_url, keys):
    token = make_token(keys.private_pem, **claims())
    response = post_mcp(base_url, token, "tools/call", {"name": "whoami", "arguments": {}})
    assert response.status_code == 200
    assert response.json()["result"]["structuredContent"] == {
        "tenant": "acme",
        "user": "user-ann",
        "agent": "helper",
        "principal": "user-ann",
        "scopes": ["memory:read", "memory:write"],
        "roles": ["editor", "reader"],
    }


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_fastmcp_client_with_valid_token_sees_its_tenant(base_url, keys, mode):
    token = make_token(keys.private_pem, **claims(tenant="globex", roles="admin auditor"))

    async def call():
        async with Client(f"{base_url}/mcp", auth=token, mode=mode) as client:
            return (await client.call_tool("whoami", {})).data

    data = asyncio.run(call())
    assert (data["tenant"], data["roles"]) == ("globex", ["admin", "auditor"])


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(
    "refused, status, error",
    [({"scope": None}, 403, "insufficient_scope"), ({"tenant": None}, 401, "invalid_token")],
    ids=["403", "401"],
)
def test_fastmcp_client_is_refused_a_token_without_scope_or_tenant(base_url, keys, mode, refused, status, error):
    token = make_token(keys.private_pem, **claims(**refused))
    seen = []  # (status, WWW-Authenticate) of every HTTP response the client received

    async def record(response):
        seen.append((response.status_code, response.headers.get("www-authenticate", "")))

    def client_factory(**kwargs):
        return httpx.AsyncClient(event_hooks={"response": [record]}, **kwargs)

    async def call():
        transport = StreamableHttpTransport(f"{base_url}/mcp", auth=token, httpx_client_factory=client_factory)
        async with Client(transport, mode=mode) as client:
            await client.call_tool("whoami", {})

    with pytest.raises(MCPError, match="Server returned an error response"):
        asyncio.run(call())
    assert seen and seen[-1][0] == status, seen
    assert seen[-1][1].startswith(f'Bearer error="{error}", '), seen


def test_protected_resource_metadata_names_resource_issuer_and_scopes(base_url):
    response = httpx.get(f"{base_url}/.well-known/oauth-protected-resource/mcp", timeout=10)
    assert response.status_code == 200
    assert response.json() == {
        "resource": f"{PUBLIC_URL}/mcp",
        "authorization_servers": [ISSUER],  # exactly as configured: no slash added
        "scopes_supported": ["memory:read"],
        "bearer_methods_supported": ["header"],
    }


@pytest.mark.parametrize("authorization", [None, "Bearer not-a-jwt"])
def test_health_is_public_and_says_only_ok(base_url, authorization):
    headers = {"Authorization": authorization} if authorization else {}
    response = httpx.get(f"{base_url}/health", headers=headers, timeout=10)
    assert (response.status_code, response.content) == (200, b'{"status":"ok"}')


def test_jwks_key_with_matching_kid_is_accepted_and_unknown_kid_is_401():
    keys, stranger = make_keypair(), make_keypair()
    jwks = {"keys": [public_jwk(keys.public_pem, "key-1")]}

    async def jwks_endpoint(request):
        return JSONResponse(jwks)

    jwks_app = Starlette(routes=[Route("/jwks.json", jwks_endpoint)])
    with serve_asgi(jwks_app) as idp_url:
        settings = HttpAuthSettings(issuer=ISSUER, audience=AUDIENCE, jwks_uri=f"{idp_url}/jwks.json")
        with serve_asgi(build_server(settings).http_app()) as url:
            good = make_token(keys.private_pem, kid="key-1", **claims())
            unknown = make_token(stranger.private_pem, kid="key-2", **claims())
            assert post_mcp(url, good).status_code == 200
            assert post_mcp(url, unknown).status_code == 401


def test_public_key_file_is_read_at_build_time(tmp_path, keys):
    pem = tmp_path / "idp.pem"
    pem.write_text(keys.public_pem)
    settings = HttpAuthSettings(issuer=ISSUER, audience=AUDIENCE, public_key_file=pem)
    assert build_auth(settings, "http://127.0.0.1:1").token_verifier.verifiers["jwt"].public_key == keys.public_pem


def test_unreadable_public_key_file_is_a_config_error(tmp_path):
    settings = HttpAuthSettings(issuer=ISSUER, audience=AUDIENCE, public_key_file=tmp_path / "missing.pem")
    with pytest.raises(ConfigError, match="^http.auth.public_key_file .* cannot be read") as raised:
        build_auth(settings, "http://127.0.0.1:1")
    assert raised.value.field == "http.auth.public_key_file"
    assert raised.value.message == (
        f"http.auth.public_key_file {str(tmp_path / 'missing.pem')!r} cannot be read: No such file or directory."
    )


@pytest.mark.parametrize(
    "given, message",
    [
        (
            {"audience": AUDIENCE, "public_key": "pem"},
            "http.auth.issuer is required for HTTP transport. "
            "Set it in memgate.toml [http.auth] or MEMGATE_HTTP__AUTH__ISSUER. "
            "To try HTTP on this machine first, see `memgate dev-token --help`.",
        ),
        (
            {"issuer": ISSUER, "audience": AUDIENCE},
            "http.auth needs a token signing key for HTTP transport: set exactly one of "
            "jwks_uri, public_key, public_key_file. "
            "Set it in memgate.toml [http.auth] or MEMGATE_HTTP__AUTH__JWKS_URI.",
        ),
    ],
)
def test_incomplete_settings_name_the_missing_key_and_the_fix(given, message):
    with pytest.raises(ConfigError, match=r"^http\.auth") as raised:
        build_auth(HttpAuthSettings(**given), "http://127.0.0.1:1")
    assert raised.value.with_hint() == message


def test_two_key_sources_are_rejected_when_settings_load():
    with pytest.raises(ValidationError, match="http.auth sets jwks_uri and public_key") as raised:
        HttpAuthSettings(jwks_uri="https://idp.example.test/jwks", public_key="pem")
    assert "http.auth sets jwks_uri and public_key; set exactly one of jwks_uri, public_key, public_key_file." in str(
        raised.value
    )


def test_unknown_settings_key_is_rejected():
    with pytest.raises(ValueError, match="audiences"):
        HttpAuthSettings(audiences="x")


def test_identity_maps_configured_claims_and_keeps_short_string_context():
    settings = HttpAuthSettings(tenant_claim="org", user_claim="email", agent_claim="azp")
    token = AccessToken(
        token="t",
        client_id="c",
        scopes=["memory:read"],
        claims={
            "org": "initech",
            "email": "peter@initech.test",
            "azp": "desk-agent",
            "sub": "u-42",
            "roles": "reader editor",
            "scope": "memory:read",
            "region": "eu",
            "huge": "x" * 201,
            "exp": 123,
            "groups": ["a"],
        },
    )
    assert identity_from_access_token(token, settings).__dict__ == {
        "tenant": "initech",
        "user": "peter@initech.test",
        "agent": "desk-agent",
        "thread": None,
        "principal": "u-42",
        "scopes": frozenset({"memory:read"}),
        "roles": frozenset({"reader", "editor"}),
        "client_name": None,
        "client_version": None,
        "session": None,
        "model": None,
        "tool": None,
        "call_id": None,
        "context": (("region", "eu"),),
    }


def test_identity_from_token_without_tenant_is_access_denied():
    token = AccessToken(token="t", client_id="c", scopes=[], claims={"sub": "u"})
    with pytest.raises(AccessDenied, match="The access token has no 'tenant' claim."):
        identity_from_access_token(token, HttpAuthSettings())


def test_a_signed_token_longer_than_max_token_bytes_is_refused_unread(base_url, keys):
    """Well signed and in date, but past http.auth.max_token_bytes (16 KiB): no verifier reads it."""
    big = make_token(keys.private_pem, **claims(padding="p" * 20_000))
    response = post_mcp(base_url, big)
    assert response.status_code == 401
    assert response.json() == {
        "error": "invalid_token",
        "error_description": "The bearer token is longer than this server accepts.",
    }
