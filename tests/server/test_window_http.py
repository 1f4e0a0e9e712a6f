"""A context window over Streamable HTTP in the stateless 2026-07-28 era, found in the database by identity.

Each request of a 2026-07-28 client is on its own (its MCP session id is new every time),
and the next one may reach another server process: the window is found by the caller's
tenant, user, agent and thread (the JWT `thread` claim), never by server session memory.
"""

from __future__ import annotations

import re

import pytest
from backend_helpers import operator_rows
from context_helpers import FACT_CHECK
from fastmcp import Client
from fastmcp.exceptions import ToolError
from http_helpers import serve_asgi
from mcp_helpers import log_rows
from mcp_types import Implementation
from test_server_http import AUDIENCE, ISSUER, KEYS, token

from memgate.manager import ACME
from memgate.manager.demo.dataset import ACME_BUDGET
from memgate.server.app import http_asgi_app, http_server
from memgate.server.cli.common import open_manager
from memgate.server.settings import load_settings

pytestmark = pytest.mark.anyio

LOOKUP = {"subject": "model:helios-rag", "predicate": "beir_ndcg10"}
SPENT = "window: this context window's tool budget is spent (3 of 3 rounds)"
NOT_ISSUED = "That memory id was not issued to you"


class _Process:
    """One memgate HTTP server as its own process would hold it: its own manager, pool and FastMCP."""

    def __init__(self, path, *, stateless: bool = False):
        s = load_settings(
            None, **{"database.path": str(path), "server.transport": "http", "server.stateless": stateless}
        )
        auth = s.http.auth.model_copy(
            update={"issuer": ISSUER, "audience": AUDIENCE, "public_key": KEYS.public_pem, "required_scopes": []}
        )
        self.settings = s.model_copy(update={"http": s.http.model_copy(update={"auth": auth})})
        self.manager = open_manager(self.settings)
        self.app = http_asgi_app(http_server(self.manager, self.settings), self.settings)


@pytest.fixture
def two_processes(sqlite_path, two_tenants, manager):
    """Two server processes on one database, and a budget small enough that windows issue pointers."""
    probe = manager.assemble_context(ACME, FACT_CHECK, "fact_check").manifest
    manager.set_context_budget(
        ACME,
        # no relevance floor: every passage is a candidate, so the small window issues pointers
        {
            **ACME_BUDGET,
            "usable_context": 1900 + sum(probe["arithmetic"]["fixed"].values()) + 400,
            "relevance_floor": 0,
        },
    )
    a, b = _Process(sqlite_path), _Process(sqlite_path)
    try:
        with serve_asgi(a.app) as url_a, serve_asgi(b.app) as url_b:
            yield f"{url_a}/mcp", f"{url_b}/mcp"
    finally:
        a.manager.close()
        b.manager.close()


@pytest.fixture
def two_stateless_processes(sqlite_path, two_tenants, manager):
    """Two `server.stateless` replicas (legacy clients' sessions live in no process) and the small budget."""
    probe = manager.assemble_context(ACME, FACT_CHECK, "fact_check").manifest
    manager.set_context_budget(
        ACME,
        # no relevance floor: every passage is a candidate, so the small window issues pointers
        {
            **ACME_BUDGET,
            "usable_context": 1900 + sum(probe["arithmetic"]["fixed"].values()) + 400,
            "relevance_floor": 0,
        },
    )
    a, b = _Process(sqlite_path, stateless=True), _Process(sqlite_path, stateless=True)
    try:
        with serve_asgi(a.app) as url_a, serve_asgi(b.app) as url_b:
            yield f"{url_a}/mcp", f"{url_b}/mcp"
    finally:
        a.manager.close()
        b.manager.close()


async def _window(url, bearer, mode="auto") -> str:
    async with Client(url, auth=bearer, mode=mode) as c:  # mode auto: 2026-07-28
        r = await c.get_prompt("context_window", {"question": FACT_CHECK, "intent": "fact_check"})
    return r.messages[0].content.text


async def _call(url, bearer, name="lookup_entity", arguments=LOOKUP, mode="auto") -> str:
    """One tool call in its own client connection (a stateless request): its first line, or the refusal."""
    async with Client(url, auth=bearer, mode=mode) as c:
        try:
            r = await c.call_tool(name, arguments)
        except ToolError as e:
            return str(e)
    return r.content[0].text


def _served_manifests(backend) -> list[dict]:
    """The manifests the servers recorded (the fixture's probe, assembled in-process, is keyed on nothing)."""
    rows = operator_rows(backend, "conversation_memory", "WHERE event_type = 'context_manifest'")
    return [r for r in rows if r["thread_id"] or r["session_id"]]


def _round(text: str) -> str:
    if SPENT in text:
        return "spent"
    m = re.search(r"round: (\d+ of \d+)", text.splitlines()[0])
    return m.group(1) if m else "-"


def _pointer(text: str) -> str:
    return re.search(r'^<memory id="([^"]+)"[^>\n]* tier="pointer"', text, re.MULTILINE).group(1)


async def test_a_modern_client_expands_a_pointer_on_the_next_request_and_its_rounds_are_counted(two_processes, backend):
    a, b = two_processes
    jane = token(sub="jane")
    pointer = _pointer(await _window(a, jane))
    expanded = await _call(b, jane, "expand", {"memory_id": pointer})  # another request, another process
    rounds = [_round(await _call(url, jane)) for url in (a, b, a)]
    assert f'<memory id="{pointer}"' in expanded and _round(expanded) == "1 of 3"
    assert rounds == ["2 of 3", "3 of 3", "spent"]
    [manifest] = _served_manifests(backend)
    sessions = {r["session_id"] for r in log_rows(backend, tenant_id="acme")}
    assert sessions == {manifest["session_id"]} and manifest["session_id"].startswith("caller-")
    assert manifest["thread_id"] is None


async def test_another_user_or_agent_without_a_thread_is_not_in_that_window(two_processes):
    a, b = two_processes
    pointer = _pointer(await _window(a, token(sub="jane")))
    assert (await _call(b, token(sub="omar"), "expand", {"memory_id": pointer})).startswith(NOT_ISSUED)
    other_agent = token(sub="jane", agent="report-writer")
    assert (await _call(b, other_agent, "expand", {"memory_id": pointer})).startswith(NOT_ISSUED)
    assert _round(await _call(a, other_agent)) == "-"


async def test_the_jwt_thread_claim_scopes_calls(two_processes, backend):
    a, b = two_processes
    in_a, in_b = token(sub="jane", thread="thread-a"), token(sub="jane", thread="thread-b")
    pointer = _pointer(await _window(a, in_a))
    assert (await _call(b, in_b, "expand", {"memory_id": pointer})).startswith(NOT_ISSUED)
    assert _round(await _call(b, in_b)) == "-"  # thread-b has no window: a plain call
    assert _round(await _call(b, in_a, "expand", {"memory_id": pointer})) == "1 of 3"
    assert _round(await _call(a, in_a)) == "2 of 3"
    [manifest] = _served_manifests(backend)
    assert (manifest["thread_id"], manifest["session_id"]) == ("thread-a", None)
    threads = [r["thread_id"] for r in log_rows(backend, tenant_id="acme")]
    assert threads == ["thread-b", "thread-b", "thread-a", "thread-a"]
    results = operator_rows(backend, "conversation_memory", "WHERE event_type = 'tool_result'")
    assert {r["thread_id"] for r in results} == {"thread-a"}


async def test_a_legacy_client_on_a_stateless_replica_expands_a_pointer_it_was_given(two_stateless_processes, backend):
    """A 2025-11-25 client has no lasting MCP session on a `server.stateless` server: its window is keyed by
    its client (tenant, user, agent, OAuth client, client name), so the next request, on another replica,
    finds it, and its rounds are counted."""
    a, b = two_stateless_processes
    jane = token(sub="jane")
    pointer = _pointer(await _window(a, jane, mode="legacy"))
    expanded = await _call(b, jane, "expand", {"memory_id": pointer}, mode="legacy")
    assert f'<memory id="{pointer}"' in expanded and _round(expanded) == "1 of 3"
    assert _round(await _call(a, jane, mode="legacy")) == "2 of 3"
    [manifest] = _served_manifests(backend)
    assert manifest["session_id"].startswith("caller-") and manifest["thread_id"] is None
    # another OAuth client of the same user (azp) is another window: the pointer is not its own. (A legacy
    # client names itself only in its initialize request, which a stateless server keeps nowhere, so the
    # client name cannot key its window here; a 2026-07-28 client sends it with every request.)
    other = token(sub="jane", azp="other-host")
    assert (await _call(b, other, "expand", {"memory_id": pointer}, mode="legacy")).startswith(NOT_ISSUED)


async def test_two_modern_clients_of_one_user_have_two_windows(two_processes):
    """A 2026-07-28 client without a thread claim: its window is its client's (name and OAuth client), so
    a second client of the same user is not locked out by the first's spent rounds."""
    a, b = two_processes
    jane = token(sub="jane")
    pointer = _pointer(await _window(a, jane))
    async with Client(b, auth=jane, client_info=Implementation(name="chatgpt", version="1")) as c:
        try:
            other = (await c.call_tool("expand", {"memory_id": pointer})).content[0].text
        except ToolError as e:
            other = str(e)
    assert other.startswith(NOT_ISSUED)
