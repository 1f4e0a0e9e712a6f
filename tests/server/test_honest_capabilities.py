"""The server advertises what it delivers: no listChanged it never sends; the MCP Apps UI extension it serves."""

from __future__ import annotations

import asyncio
import time

import pytest
from fastmcp import Client
from jwt_helpers import make_keypair, make_token
from mcp_helpers import stdio_app
from remote_helpers import memgate_settings, serve_memgate

ISS = "https://idp.example.test"
KEYS = make_keypair()


def assert_honest(caps, mode):
    assert caps is not None and caps.tools is not None
    assert not caps.tools.list_changed
    assert not caps.resources.list_changed and not caps.prompts.list_changed
    # the two views are served (server/app_views.py); the SDK strips extensions from a 2025-11-25 handshake
    ui = (caps.extensions or {}).get("io.modelcontextprotocol/ui")
    assert ui == ({"mimeTypes": ["text/html;profile=mcp-app"]} if mode == "auto" else None)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_http_clients_of_both_eras_are_promised_no_list_changed_and_the_ui_extension(sqlite_path, two_tenants, mode):
    now = int(time.time())
    bearer = make_token(KEYS.private_pem, iss=ISS, aud="memgate", sub="jane", tenant="acme", iat=now, exp=now + 300)
    auth = {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem}

    async def capabilities(url):
        async with Client(f"{url}/mcp", auth=bearer, mode=mode) as c:
            assert await c.list_tools()
            return c.server_capabilities

    with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
        assert_honest(asyncio.run(capabilities(url)), mode)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.anyio
async def test_stdio_clients_are_promised_no_list_changed_and_the_ui_extension(sqlite_path, two_tenants, mode):
    app, manager = stdio_app(sqlite_path)
    try:
        async with Client(app, mode=mode) as c:
            assert_honest(c.server_capabilities, mode)
    finally:
        manager.close()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_cursor_memgate_never_issued_is_invalid_params_over_http(sqlite_path, two_tenants, mode):
    from mcp.shared.exceptions import MCPError
    from mcp.types import INVALID_PARAMS

    now = int(time.time())
    bearer = make_token(KEYS.private_pem, iss=ISS, aud="memgate", sub="jane", tenant="acme", iat=now, exp=now + 300)
    auth = {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem}

    async def lists(url):
        async with Client(f"{url}/mcp", auth=bearer, mode=mode) as c:
            first = await c.list_tools_mcp()
            assert first.tools and first.next_cursor is None  # one page, no cursor issued
            for method in (c.list_tools_mcp, c.list_resources_mcp, c.list_prompts_mcp):
                with pytest.raises(MCPError, match="^Invalid cursor: memgate lists everything in one page") as err:
                    await method(cursor="eyJvZmZzZXQiOiAxMH0=")
                assert err.value.error.code == INVALID_PARAMS

    with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
        asyncio.run(lists(url))
