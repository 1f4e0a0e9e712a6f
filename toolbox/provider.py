"""ToolboxProvider: the caller's active toolbox rows, as MCP tools, read on every request.

`_list_tools` and `_get_tool` re-read the database each time, so enabling,
disabling or expiring a row shows on the next request with no restart. A row
that cannot be served is left out and the operator log says why. A database
failure is raised, not hidden: the server sets provider_error_strategy="raise"
so the client gets a clear server error instead of an empty tool list.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import anyio
from fastmcp.server.providers import Provider
from fastmcp.tools import Tool

from memgate.manager import MemoryManager
from memgate.manager.errors import InvalidArgument
from memgate.manager.toolbox_store import ToolRow

from .dispatch import CallContextResolver, ToolDispatcher
from .rows import RowRefused, RowTool, tool_from_row

log = logging.getLogger("memgate.toolbox")


class ToolboxProvider(Provider):
    def __init__(self, manager: MemoryManager, resolve: CallContextResolver):
        super().__init__()
        self.manager = manager
        self.resolve = resolve
        self.dispatcher = ToolDispatcher(manager, resolve)

    async def _list_tools(self) -> Sequence[Tool]:
        return await self._tools(None)

    async def _get_tool(self, name: str, version=None) -> Tool | None:
        tools = await self._tools(name)
        return tools[0] if tools else None

    async def _tools(self, name: str | None) -> list[RowTool]:
        identity = self.resolve().identity
        rows = await anyio.to_thread.run_sync(lambda: self.manager.active_tools(identity, name))
        tools = []
        for raw in rows:
            try:
                tools.append(tool_from_row(ToolRow.from_row(raw), self.dispatcher))
            except (RowRefused, InvalidArgument) as exc:
                reason = exc.message if isinstance(exc, InvalidArgument) else str(exc)
                log.error("toolbox row %s (%r v%s, tenant %s) is not served: %s",
                          raw["id"], raw["tool_name"], raw["version"], identity.tenant, reason)
        return tools
