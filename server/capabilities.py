"""What the server advertises, and only what it delivers.

memgate sends no `notifications/*/list_changed` (toolbox rows, guidelines and personas are
re-read on every list, so a host sees a change on its next list), so no `listChanged` is
advertised in either protocol era. It serves two MCP App views (app_views.py), so it
advertises the `io.modelcontextprotocol/ui` extension with the one MIME type its views use, the
settings SEP-1865 gives the extension (FastMCP adds it with no settings).

Lists come in one page and no cursor is ever issued, so a list request that carries a
cursor carries one memgate never gave: JSON-RPC -32602 (invalid params), as the spec asks,
instead of silently answering the first page again.
"""

from __future__ import annotations

from typing import Any

from fastmcp import FastMCP
from fastmcp.apps.config import UI_EXTENSION_ID, UI_MIME_TYPE
from mcp.server.lowlevel.server import HandlerEntry, NotificationOptions
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

#: the list methods; memgate answers each in one page
LIST_METHODS = ("tools/list", "resources/list", "resources/templates/list", "prompts/list")
INVALID_CURSOR = "Invalid cursor: memgate lists everything in one page and issues no cursors; ask without one."


def advertise_only_what_is_served(mcp: FastMCP) -> None:
    low = mcp._mcp_server
    low.notification_options = NotificationOptions()  # every *_changed False: none is ever sent
    advertised = low.get_capabilities

    def get_capabilities(*args: Any, **kwargs: Any):
        capabilities = advertised(*args, **kwargs)
        extensions = {**(capabilities.extensions or {}), UI_EXTENSION_ID: {"mimeTypes": [UI_MIME_TYPE]}}
        return capabilities.model_copy(update={"extensions": extensions})

    low.get_capabilities = get_capabilities  # type: ignore[method-assign]


def refuse_foreign_cursors(mcp: FastMCP) -> None:
    low = mcp._mcp_server
    for method in LIST_METHODS:
        entry = low._request_handlers.get(method)
        if entry is None:
            continue
        low._request_handlers[method] = HandlerEntry(entry.params_type, _without_cursor(entry.handler))


def _without_cursor(handler: Any) -> Any:
    async def handle(ctx: Any, params: Any) -> Any:
        if getattr(params, "cursor", None) is not None:
            raise MCPError(INVALID_PARAMS, INVALID_CURSOR)
        return await handler(ctx, params)

    return handle
