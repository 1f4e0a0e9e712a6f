"""One principal may hold only server.max_sessions_per_principal handshake-era sessions; the next gets 429."""

from __future__ import annotations

import asyncio
import time
from contextlib import AsyncExitStack

import httpx2 as httpx
import pytest
from fastmcp import Client
from jwt_helpers import make_keypair, make_token
from mcp.shared.exceptions import MCPError
from remote_helpers import memgate_settings, post_mcp, serve_memgate

from memgate.server.session_slots import too_many_sessions

ISS = "https://idp.example.test"
KEYS = make_keypair()
LIMIT = 2


def token(sub="jane@acme", tenant="acme"):
    now = int(time.time())
    return make_token(KEYS.private_pem, iss=ISS, aud="memgate", sub=sub, tenant=tenant, iat=now, exp=now + 300)


@pytest.fixture
def url(sqlite_path, two_tenants):
    auth = {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem}
    with serve_memgate(memgate_settings(sqlite_path, auth, max_sessions_per_principal=LIMIT)) as url:
        yield url


def initialize(url, bearer):
    return httpx.post(
        f"{url}/mcp",
        headers={
            "Authorization": f"Bearer {bearer}",
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        timeout=10,
    )


def test_the_session_past_the_cap_is_refused_with_a_clear_error_and_others_are_untouched(url):
    async def scenario():
        async with AsyncExitStack() as stack:
            held = [
                await stack.enter_async_context(Client(f"{url}/mcp", auth=token(), mode="legacy")) for _ in range(LIMIT)
            ]
            refused = initialize(url, token())  # a fresh token of the same principal
            assert refused.status_code == 429
            assert refused.json()["error"]["message"] == too_many_sessions(LIMIT)
            with pytest.raises(MCPError, match=r"^This identity already holds 2 open MCP sessions, the most"):
                async with Client(f"{url}/mcp", auth=token(), mode="legacy") as c:
                    await c.list_tools()
            # the sessions it holds keep working; another principal, and the 2026-07-28 era, are not counted
            for c in held:
                assert await c.list_tools()
            assert initialize(url, token(sub="omar@globex", tenant="globex")).status_code == 200
            async with Client(f"{url}/mcp", auth=token()) as modern:
                assert await modern.list_tools()
            assert post_mcp(url, token(), method="tools/list").status_code == 200
        # closing them (the client sends DELETE) frees the slots at once
        async with Client(f"{url}/mcp", auth=token(), mode="legacy") as again:
            assert await again.list_tools()

    asyncio.run(scenario())


def test_the_default_cap_is_32():
    from memgate.server.settings import load_settings

    assert load_settings(None).server.max_sessions_per_principal == 32
