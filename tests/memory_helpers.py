"""Helpers for the memory-tool tests: an in-process server per identity, and calls through fastmcp.Client."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from backend_helpers import table_digest
from fastmcp import Client

from memgate.manager.identity import Identity
from memgate.manager.registry.defaults import load_tool_definitions
from memgate.server.app import build_server
from memgate.server.identity import stdio_resolver

#: the toolbox with memory as the one-tool memory_20250818 contract (the default splits it in two)
CONTRACT = Path(__file__).resolve().parents[1] / "config" / "toolbox.memory_contract.json"

ACME_AGENT = Identity(tenant="acme", user="jane", agent="helper", principal="test:acme")
GLOBEX_AGENT = Identity(tenant="globex", user="omar", agent="helper", principal="test:globex")

READ_ONLY_ROW = {
    "tool_name": "memory_readonly",
    "tool_handler": "memory",
    "usage_notes": "Read the team's memory files (view only).",
    "tool_schema": next(t for t in load_tool_definitions(CONTRACT) if t["tool_name"] == "memory")["tool_schema"],
    "access_policy": {"allowed_commands": ["view"], "memory_store": {"scope": "agent"}},
}


def seed(manager, identity: Identity, *extra_rows: dict[str, Any]) -> None:
    """What `memgate init -t TENANT --tools-file config/toolbox.memory_contract.json` seeds, plus extra rows:
    `memory` is the whole contract (every command), as these tests drive it."""
    manager.seed_tools(identity, [*load_tool_definitions(CONTRACT), *extra_rows])


def server_for(manager, identity: Identity):
    """The stdio server as `memgate serve` builds it, speaking for `identity`."""
    return build_server(manager, stdio_resolver(identity))


class Session:
    """A connected client with a compact call(): returns (is_error, text)."""

    def __init__(self, client: Client, tool: str):
        self.client = client
        self.tool = tool

    async def call(self, tool: str | None = None, **arguments: Any) -> tuple[bool, str]:
        result = await self.client.call_tool(tool or self.tool, arguments, raise_on_error=False)
        return bool(result.is_error), result.content[0].text


def run_calls(manager, identity: Identity, calls, *, mode: str = "auto", tool: str = "memory") -> Any:
    """Open a client on a fresh server for `identity` and run `await calls(session)`."""

    async def main():
        async with Client(server_for(manager, identity), mode=mode) as client:
            return await calls(Session(client, tool))

    return asyncio.run(main())


def call(manager, identity: Identity, tool: str = "memory", **arguments: Any) -> tuple[bool, str]:
    """One call on a fresh client."""
    return run_calls(manager, identity, lambda s: s.call(**arguments), tool=tool)


def snapshot(backend) -> str:
    """Every memory row of every tenant, read as the operator: to prove a refused call wrote nothing."""
    return table_digest(backend, ("memory_store", "memory_file"))


DIR_HEADER = "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
FILE_HEADER = "Here's the content of {path} with line numbers:"
