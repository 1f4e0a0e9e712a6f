"""One principal may hold only server.max_sessions_per_principal handshake-era sessions; the next gets 429."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import AsyncExitStack, contextmanager

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


def headers(bearer, session=None):
    sent = {
        "Authorization": f"Bearer {bearer}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if session is not None:
        sent |= {"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-11-25"}
    return sent


#: a handshake-era client's first request: it opens a session
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def initialize(url, bearer):
    return httpx.post(f"{url}/mcp", headers=headers(bearer), json=INITIALIZE, timeout=10)


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


def open_session(url, bearer):
    """A handshake-era session opened by a raw initialize; its Mcp-Session-Id."""
    response = initialize(url, bearer)
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"]


def ping(url, bearer, session):
    body = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    return httpx.post(f"{url}/mcp", headers=headers(bearer, session), json=body, timeout=10)


def delete(url, bearer, session):
    return httpx.delete(f"{url}/mcp", headers=headers(bearer, session), timeout=10)


def wait_until_open_succeeds(url, bearer, within):
    """Bounded: retries the open that gets 429 until it succeeds or `within` seconds have passed."""
    deadline = time.monotonic() + within
    while (response := initialize(url, bearer)).status_code == 429 and time.monotonic() < deadline:
        time.sleep(0.2)
    return response


def test_a_deleted_session_frees_its_slot_and_principals_do_not_share_slots(url):
    jane = [open_session(url, token()) for _ in range(LIMIT)]
    assert initialize(url, token()).status_code == 429
    omar = [open_session(url, token(sub="omar@globex", tenant="globex")) for _ in range(LIMIT)]
    assert initialize(url, token(sub="omar@globex", tenant="globex")).status_code == 429
    # another principal cannot end jane's session: the SDK answers 404 and her slot stays taken
    assert delete(url, token(sub="omar@globex", tenant="globex"), jane[0]).status_code == 404
    assert ping(url, token(sub="omar@globex", tenant="globex"), jane[0]).status_code == 404
    assert initialize(url, token()).status_code == 429
    assert ping(url, token(), jane[0]).status_code == 200
    # her own DELETE frees exactly one slot
    assert delete(url, token(), jane[0]).status_code == 200
    assert ping(url, token(), jane[0]).status_code == 404
    open_session(url, token())
    assert initialize(url, token()).status_code == 429
    assert initialize(url, token(sub="omar@globex", tenant="globex")).status_code == 429
    assert delete(url, token(sub="omar@globex", tenant="globex"), omar[1]).status_code == 200
    open_session(url, token(sub="omar@globex", tenant="globex"))


def test_concurrent_opens_do_not_overshoot_the_cap(url):
    async def scenario():
        async with httpx.AsyncClient(timeout=10) as client:
            bearer = token()
            return await asyncio.gather(
                *(client.post(f"{url}/mcp", headers=headers(bearer), json=INITIALIZE) for _ in range(4 * LIMIT))
            )

    statuses = sorted(r.status_code for r in asyncio.run(scenario()))
    assert statuses == [200] * LIMIT + [429] * (3 * LIMIT)


@pytest.fixture
def short_idle_url(sqlite_path, two_tenants):
    auth = {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem}
    settings = memgate_settings(sqlite_path, auth, max_sessions_per_principal=LIMIT, session_idle_seconds=1)
    with serve_memgate(settings) as url:
        yield url


def test_an_idle_session_is_closed_by_the_sdk_and_frees_its_slot(short_idle_url):
    url = short_idle_url
    sessions = [open_session(url, token()) for _ in range(LIMIT)]
    refused = initialize(url, token())
    assert refused.status_code == 429
    assert refused.json()["error"]["message"] == too_many_sessions(LIMIT, 1)
    assert "wait until one has been idle for 1 second." in refused.json()["error"]["message"]
    assert wait_until_open_succeeds(url, token(), within=10).status_code == 200
    # the SDK was given the same timeout: the idle sessions are gone there too
    assert [ping(url, token(), s).status_code for s in sessions] == [404] * LIMIT


@contextmanager
def serve_mismatched(sqlite_path, *, sdk_idle, slots_idle):
    """memgate's server with the SDK's idle timeout and SessionSlots' set apart (app.py sets both
    from one setting), so each way a slot is freed or kept can be seen on its own."""
    from http_helpers import serve_asgi
    from starlette.middleware import Middleware

    from memgate.server.app import http_server, uvicorn_options
    from memgate.server.auth import MCP_PATH
    from memgate.server.cli.common import open_manager
    from memgate.server.session_slots import SessionSlots

    auth = {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem}
    settings = memgate_settings(sqlite_path, auth)
    manager = open_manager(settings)
    try:
        slots = Middleware(SessionSlots, limit=LIMIT, path=MCP_PATH, idle_seconds=slots_idle)
        app = http_server(manager, settings).http_app(
            path=MCP_PATH, middleware=[slots], session_idle_timeout=sdk_idle, host_origin_protection=False
        )
        with serve_asgi(app, **uvicorn_options(settings)) as url:
            yield url
    finally:
        manager.close()


def test_a_session_the_sdk_answers_404_for_frees_its_slot(sqlite_path, two_tenants):
    """The SDK closes idle sessions after 1 s while SessionSlots would wait an hour: only the
    owner's request answered 404 ("Session not found") can free the slot."""
    with serve_mismatched(sqlite_path, sdk_idle=1, slots_idle=3600) as url:
        sessions = [open_session(url, token()) for _ in range(LIMIT)]
        time.sleep(2)  # the SDK has closed both; nothing told SessionSlots, whose own clock says an hour
        assert initialize(url, token()).status_code == 429
        # another principal's 404 for it proves nothing: the slot stays taken
        assert ping(url, token(sub="omar@globex", tenant="globex"), sessions[0]).status_code == 404
        assert initialize(url, token()).status_code == 429
        # the owner's request answered 404 ends it there too
        assert ping(url, token(), sessions[0]).status_code == 404
        assert initialize(url, token()).status_code == 200


def test_a_session_the_sdk_still_serves_is_counted_again(sqlite_path, two_tenants):
    """SessionSlots forgets idle sessions after 2 s while the SDK keeps them an hour: the
    owner's next request the SDK serves counts its session again (fail closed, not open)."""
    with serve_mismatched(sqlite_path, sdk_idle=3600, slots_idle=2) as url:
        sessions = [open_session(url, token()) for _ in range(LIMIT)]
        time.sleep(2.5)
        open_session(url, token())  # both forgotten: a slot is free
        # another principal's request for one is refused by the SDK and counts nothing
        assert ping(url, token(sub="omar@globex", tenant="globex"), sessions[0]).status_code == 404
        # its owner's request is served, so the session is open and holds a slot again
        assert ping(url, token(), sessions[0]).status_code == 200
        refused = initialize(url, token())
        assert refused.status_code == 429, refused.text


def counts_sessions(settings) -> bool:
    from memgate.server.app import http_asgi_app, http_server
    from memgate.server.cli.common import open_manager
    from memgate.server.session_slots import SessionSlots

    manager = open_manager(settings)
    try:
        app = http_asgi_app(http_server(manager, settings), settings)
        return any(m.cls is SessionSlots for m in app.user_middleware)
    finally:
        manager.close()


def test_a_stateless_server_opens_no_sessions_and_caps_nothing(sqlite_path, two_tenants):
    auth = {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem}
    settings = memgate_settings(sqlite_path, auth, max_sessions_per_principal=1, stateless=True)
    assert counts_sessions(memgate_settings(sqlite_path, auth)) and not counts_sessions(settings)
    with serve_memgate(settings) as url:
        bearer = token()
        with ThreadPoolExecutor(4) as pool:  # at once, so no open-in-progress counting refuses one either
            responses = list(pool.map(lambda _: initialize(url, bearer), range(8)))
        assert [r.status_code for r in responses] == [200] * 8
        assert not any("mcp-session-id" in r.headers for r in responses)

        async def scenario():
            async with AsyncExitStack() as stack:
                for _ in range(3):
                    client = await stack.enter_async_context(Client(f"{url}/mcp", auth=token(), mode="legacy"))
                    assert await client.list_tools()

        asyncio.run(scenario())
