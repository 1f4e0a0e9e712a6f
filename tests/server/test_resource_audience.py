"""RFC 8707 audiences: a JWT issued for this server's resource URL is accepted, alongside configured audiences."""

from __future__ import annotations

import asyncio
import time

import pytest
from fastmcp import Client
from jwt_helpers import make_keypair, make_token
from mcp_helpers import log_rows
from remote_helpers import memgate_settings, post_mcp, serve_memgate

ISS = "https://idp.example.test"
PUBLIC = "https://memgate.example.test"
KEYS = make_keypair()


def token(aud):
    now = int(time.time())
    return make_token(
        KEYS.private_pem, iss=ISS, aud=aud, sub="jane@acme", tenant="acme", scope="memory:read", iat=now, exp=now + 300
    )


def auth(**extra):
    return {"issuer": ISS, "public_key": KEYS.public_pem, "required_scopes": ["memory:read"], **extra}


def listed(url, bearer):
    async def go():
        async with Client(f"{url}/mcp", auth=bearer) as c:
            return [t.name for t in await c.list_tools()]

    return asyncio.run(go())


@pytest.mark.parametrize("configured", [None, "memgate", ["memgate", "api://memgate"]])
def test_the_resource_url_is_an_audience_beside_the_configured_ones(sqlite_path, two_tenants, backend, configured):
    settings = memgate_settings(sqlite_path, auth(audience=configured), base_url=f"{PUBLIC}/")
    with serve_memgate(settings) as url:
        assert "lookup_entity" in listed(url, token(f"{PUBLIC}/mcp"))
        assert "lookup_entity" in listed(url, token(["other-api", f"{PUBLIC}/mcp"]))
        if configured:
            assert "lookup_entity" in listed(url, token("memgate"))
        for wrong in (PUBLIC, f"{PUBLIC}/mcp/x", "https://other.example.test/mcp", "someone-else"):
            response = post_mcp(url, token(wrong))
            assert response.status_code == 401, wrong
            assert response.json()["error"] == "invalid_token"
    assert all(r["status"] == "ok" for r in log_rows(backend))


def test_resource_url_wins_over_base_url_for_the_audience(sqlite_path, two_tenants):
    settings = memgate_settings(
        sqlite_path, auth(resource_url="https://mem.example.test"), base_url="https://internal.example.test"
    )
    with serve_memgate(settings) as url:
        assert post_mcp(url, token("https://mem.example.test/mcp"), method="tools/list").status_code == 200
        assert post_mcp(url, token("https://internal.example.test/mcp"), method="tools/list").status_code == 401


def test_doctor_names_the_resource_audience():
    from memgate.server.auth_settings import HttpAuthSettings

    settings = HttpAuthSettings.model_validate(auth(audience="memgate"))
    assert settings.describe(f"{PUBLIC}/mcp") == f"jwt (issuer {ISS}, audience memgate or {PUBLIC}/mcp)"
