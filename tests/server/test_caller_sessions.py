"""A modern-era (2026-07-28) caller's lasting session is its own: made from its tenant, user and agent
(server/identity.py, caller_session), so a session-scoped memory store is never shared between two users
of one agent, on the real HTTP server with locally signed JWTs."""

from __future__ import annotations

import asyncio
import time

from fastmcp import Client
from jwt_helpers import make_keypair, make_token
from memory_helpers import CONTRACT
from remote_helpers import memgate_settings, serve_memgate

from memgate.manager import ACME, Identity, load_tool_definitions
from memgate.server.identity import caller_session

ISS = "https://idp.example.test"
KEYS = make_keypair()
MARK = "qzsessionnote4242"
SESSION_MEMORY = {
    "tool_name": "memory_session",
    "tool_handler": "memory",
    "usage_notes": "Notes for this session.",
    "access_policy": {"memory_store": {"scope": "session"}},
}


def token(user: str) -> str:
    now = int(time.time())
    return make_token(
        KEYS.private_pem, iss=ISS, aud="memgate", sub=user, tenant="acme", agent="helper", iat=now, exp=now + 300
    )


def test_two_users_of_one_agent_have_two_caller_sessions():
    jane, bob = (Identity(tenant="acme", user=u, agent="helper") for u in ("jane", "bob"))
    assert caller_session(jane) == caller_session(Identity(tenant="acme", user="jane", agent="helper"))
    assert caller_session(jane) != caller_session(bob)
    assert caller_session(jane) != caller_session(Identity(tenant="acme", user="jane", agent="other"))


def test_a_session_store_written_by_one_user_is_not_anothers_over_http(sqlite_path, manager, two_tenants):
    schema = next(t for t in load_tool_definitions(CONTRACT) if t["tool_name"] == "memory")["tool_schema"]
    manager.seed_tools(ACME, [{**SESSION_MEMORY, "tool_schema": schema}])

    async def call(url: str, user: str, **arguments) -> str:
        async with Client(f"{url}/mcp", auth=token(user)) as c:
            return (await c.call_tool("memory_session", arguments, raise_on_error=False)).content[0].text

    auth = {"issuer": ISS, "audience": "memgate", "public_key": KEYS.public_pem}
    with serve_memgate(memgate_settings(sqlite_path, auth)) as url:
        written = asyncio.run(call(url, "jane", command="create", path="/memories/s.md", file_text=f"jane {MARK}"))
        assert "created" in written.lower(), written
        assert MARK in asyncio.run(call(url, "jane", command="view", path="/memories/s.md"))
        bobs = asyncio.run(call(url, "bob", command="view", path="/memories/s.md"))
    assert MARK not in bobs, bobs
