"""clarify's 2026-07-28 elicitation round over real HTTP: the second leg may reach another server process."""

from __future__ import annotations

import json

import anyio
import httpx2 as httpx  # fastmcp 4 ships httpx2 (the httpx API)
import pytest
from backend_helpers import operator_rows
from fastmcp import Client
from http_helpers import serve_asgi
from mcp_helpers import log_rows
from test_server_http import AUDIENCE, ISSUER, KEYS, token

from memgate.manager import ACME, load_tool_definitions
from memgate.server.app import http_asgi_app, http_server
from memgate.server.cli.common import open_manager
from memgate.server.settings import load_settings

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}
ARGS = {"question": "Which benchmark?", "options": ["BEIR", "MTEB"]}


def _settings(path, **overrides):
    s = load_settings(None, **{"database.path": str(path), "server.transport": "http", **overrides})
    return s.model_copy(
        update={
            "http": s.http.model_copy(
                update={
                    "auth": s.http.auth.model_copy(
                        update={
                            "issuer": ISSUER,
                            "audience": AUDIENCE,
                            "public_key": KEYS.public_pem,
                            "required_scopes": ["memory:read"],
                        }
                    )
                }
            )
        }
    )


class _Process:
    """One memgate HTTP server, as its own process would hold it: its own manager, pool and FastMCP."""

    def __init__(self, path, **overrides):
        self.settings = _settings(path, **overrides)
        self.manager = open_manager(self.settings)
        self.app = http_asgi_app(http_server(self.manager, self.settings), self.settings)


def _call(url, *, state=None, answer=None):
    params = {"name": "clarify", "arguments": ARGS, "_meta": META}
    if state is not None:
        params |= {
            "requestState": state,
            "inputResponses": {"clarify": {"action": "accept", "content": {"answer": answer}}},
        }
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "clarify",
        "Authorization": f"Bearer {token()}",
    }
    return httpx.post(
        f"{url}/mcp",
        headers=headers,
        timeout=30,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
    )


def test_a_second_server_process_on_the_database_finishes_the_round_the_first_began(
    sqlite_path, two_tenants, backend, tmp_path
):
    first, second, elsewhere = _Process(sqlite_path), _Process(sqlite_path), _Process(tmp_path / "other.db")
    # the tenant is set up there too, so only the key the state was sealed with differs
    elsewhere.manager.seed_tools(ACME, load_tool_definitions())
    try:
        with serve_asgi(first.app) as a, serve_asgi(second.app) as b, serve_asgi(elsewhere.app) as c:
            asked = _call(a).json()["result"]
            assert asked["resultType"] == "input_required"
            assert asked["inputRequests"]["clarify"]["params"]["message"] == "Which benchmark?"
            state = asked["requestState"]
            foreign = _call(c, state=state, answer="BEIR")  # sealed with another database's key
            done = _call(b, state=state, answer="BEIR").json()["result"]
    finally:
        for p in (first, second, elsewhere):
            p.manager.close()
    assert foreign.status_code == 400 and "requestState" in foreign.text
    assert done["resultType"] == "complete" and "<content>BEIR</content>" in done["content"][0]["text"]
    [answer] = operator_rows(backend, "conversation_memory", "WHERE event_type = 'clarify_answer'")
    assert (answer["tenant_id"], answer["user_id"], answer["content"]) == ("acme", "jane@acme", "BEIR")
    assert json.loads(answer["content_json"])["action"] == "accept"


@pytest.mark.anyio
async def test_a_legacy_http_client_that_never_answers_gets_the_timeout_answer_and_a_log_row(
    sqlite_path, two_tenants, backend
):
    """2025-11-25 over real HTTP: the elicitation wait ends at caps.elicit_timeout_s, with a call-log row."""

    async def never(message, response_type, params, context):
        await anyio.sleep(5)  # bounded: past the server's 0.5 s deadline
        return {"answer": "BEIR"}

    server = _Process(sqlite_path, **{"caps.elicit_timeout_s": 0.5})
    try:
        with serve_asgi(server.app) as url:
            async with Client(f"{url}/mcp", auth=token(), mode="legacy", elicitation_handler=never) as c:
                r = await c.call_tool("clarify", ARGS, raise_on_error=False)
    finally:
        server.manager.close()
    assert r.content[0].text.startswith("The user did not answer in time: ask the user in your reply: Which benchmark?")
    [row] = log_rows(backend, tool_name="clarify")
    assert (row["status"], row["transport"], row["user_id"]) == ("timeout", "streamable-http", "jane@acme")
