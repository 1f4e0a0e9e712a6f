"""ToolboxProvider: the caller's active toolbox rows, as MCP tools, read on every request.

`_list_tools` and `_get_tool` re-read the database each time, so enabling,
disabling or expiring a row shows on the next request with no restart. A row whose
access_policy the caller does not meet (a scope or role it lacks) is not listed; a call to
it is still refused and logged by the dispatcher. An app-only row (review_candidate) is neither
listed nor callable for a client that did not declare the MCP Apps extension (over HTTP a missing scope is a 403
step-up challenge before that, server/step_up.py). A row
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
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR

from memgate.manager import Identity, MemgateError, MemoryManager, NoCaller, ToolRow

from .dispatch import CallContextResolver, ToolDispatcher, app_only
from .handlers import HANDLERS
from .policy import may_call
from .request_rows import rows_already_read
from .rows import GoneTool, RowTool, tool_from_row

log = logging.getLogger("memgate.toolbox")

TOOLBOX_UNAVAILABLE = (
    "memgate cannot read its tool registry right now (the memory database is unavailable). "
    "This is a server error, not an empty toolbox; the operator log has the details."
)


class ToolboxProvider(Provider):
    def __init__(self, manager: MemoryManager, resolve: CallContextResolver):
        super().__init__()
        self.manager = manager
        self.resolve = resolve
        self.dispatcher = ToolDispatcher(manager, resolve)

    async def _list_tools(self) -> Sequence[Tool]:
        return await self._tools(None, with_help=True)

    async def _get_tool(self, name: str, version=None) -> Tool | None:
        # A call needs the row, not its description: the generated help (a catalog read) is left out.
        tools = await self._tools(name, with_help=False)
        if tools:
            return tools[0]
        try:
            self.resolve()
        except NoCaller:
            return None
        # Not (or no longer) active for this caller: still a call to log, so answer with a
        # stand-in that records it as denied instead of FastMCP's unlogged "Unknown tool".
        return GoneTool(
            name=name[:200], description="not available", parameters={"type": "object"}, call=self.dispatcher.gone
        )

    async def _tools(self, name: str | None, *, with_help: bool) -> list[RowTool]:
        try:
            context = self.resolve()
        except NoCaller:
            return []
        identity = context.identity
        try:
            # A call's row may have been read by this request's step-up check a moment ago (request_rows.py).
            rows = rows_already_read(identity, name) if name is not None else None
            if rows is None:
                rows = await anyio.to_thread.run_sync(lambda: self.manager.active_tools(identity, name))
        except Exception as exc:
            # Loud for the operator, clear and detail-free for the client: never "no tools".
            log.critical("cannot read toolbox rows for tenant %s: %s", identity.tenant, exc, exc_info=True)
            raise MCPError(INTERNAL_ERROR, TOOLBOX_UNAVAILABLE) from None
        tools = []
        for raw in rows:
            try:
                row = ToolRow.from_row(raw)
                if app_only(row.tool_handler) and not context.renders_apps:
                    continue  # a view's tool, for a host that renders the view: nobody else lists or calls it
                if name is None and not may_call(row.access_policy, identity):
                    continue  # listed only to whoever may call it; a call still gets its logged refusal
                help_text = await self._help(row, identity) if with_help else None
                tools.append(tool_from_row(row, self.dispatcher, generated_help=help_text))
            except MemgateError as exc:
                log.error(
                    "toolbox row %s (%r v%s, tenant %s) is not served: %s",
                    raw["id"],
                    raw["tool_name"],
                    raw["version"],
                    identity.tenant,
                    exc.message,
                )
        return tools

    async def _help(self, row: ToolRow, identity: Identity) -> str | None:
        """The handler's generated help (HandlerSpec.describe), or None; a failure only loses the help."""
        spec = HANDLERS.get(row.tool_handler)
        if spec is None or spec.describe is None:
            return None
        try:
            return await anyio.to_thread.run_sync(lambda: spec.describe(self.manager, identity))
        except MemgateError as exc:
            log.error(
                "toolbox row %s (%r): generated help unavailable: %s", row.id, row.tool_name, exc.message, exc_info=True
            )
            return None
