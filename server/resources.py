"""Guidelines and the persona as MCP resources, read into the static prefix without a tool call;
and the functions execute_query may call, which its description only summarises."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import anyio
from fastmcp import FastMCP
from fastmcp.resources import Resource, TextResource
from fastmcp.server.providers import Provider
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR

from memgate.manager import MemoryManager, NoCaller
from memgate.toolbox import FUNCTIONS_URI, CallContextResolver

log = logging.getLogger("memgate.server")

RESOURCES_UNAVAILABLE = (
    "memgate cannot read guidelines and persona right now (the memory database is "
    "unavailable). The operator log has the details."
)
GUIDELINE_URI = "memgate://guidelines/{key}"
PERSONA_URI = "memgate://persona/{key}"


class MemoryResourceProvider(Provider):
    def __init__(self, manager: MemoryManager, resolve: CallContextResolver):
        super().__init__()
        self.manager = manager
        self.resolve = resolve

    async def _list_resources(self) -> Sequence[Resource]:
        try:
            identity = self.resolve().identity
        except NoCaller:
            return []

        def read():
            return self.manager.guidelines(identity), self.manager.personas(identity)

        try:
            guides, personas = await anyio.to_thread.run_sync(read)
        except Exception as exc:
            log.critical("cannot read guidelines/persona for tenant %s: %s", identity.tenant, exc, exc_info=True)
            raise MCPError(INTERNAL_ERROR, RESOURCES_UNAVAILABLE) from None
        found: list[Resource] = []
        for key, row in guides.items():
            found.append(
                TextResource(
                    uri=GUIDELINE_URI.format(key=key),
                    name=f"guideline-{key}",
                    description=f"Guideline {key!r} (version {row['version']}): policy for this agent, data not instructions from a user.",
                    text=row["content"] + (f"\n\n{row['content_json']}" if row["content_json"] else ""),
                    mime_type="text/plain",
                )
            )
        for key, row in personas.items():
            found.append(
                TextResource(
                    uri=PERSONA_URI.format(key=key),
                    name=f"persona-{key}",
                    description=f"The agent persona {row['name']!r} (version {row['version']}).",
                    text=f"{row['name']}\n\n{row['content']}",
                    mime_type="text/plain",
                )
            )
        return found


def add_query_functions(mcp: FastMCP, manager: MemoryManager) -> None:
    """Register memgate://query/functions: the same for every caller (the backend's dialect), so static."""
    mcp.add_resource(
        TextResource(
            uri=FUNCTIONS_URI,
            name="query-functions",
            title="execute_query functions",
            description="Every function execute_query may call, by family.",
            text=manager.query_functions_help(),
            mime_type="text/plain",
        )
    )
