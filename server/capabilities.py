"""What the server advertises, and only what it delivers.

memgate sends no `notifications/*/list_changed` (toolbox rows, guidelines and personas are
re-read on every list, so a host sees a change on its next list), so no `listChanged` is
advertised in either protocol era; and it serves no MCP App, so the
`io.modelcontextprotocol/ui` extension FastMCP adds to every server is taken out.
"""

from __future__ import annotations

from typing import Any

from fastmcp import FastMCP
from fastmcp.apps.config import UI_EXTENSION_ID
from mcp.server.lowlevel.server import NotificationOptions


def advertise_only_what_is_served(mcp: FastMCP) -> None:
    low = mcp._mcp_server
    low.notification_options = NotificationOptions()  # every *_changed False: none is ever sent
    advertised = low.get_capabilities

    def get_capabilities(*args: Any, **kwargs: Any):
        capabilities = advertised(*args, **kwargs)
        extensions = {k: v for k, v in (capabilities.extensions or {}).items() if k != UI_EXTENSION_ID}
        return capabilities.model_copy(update={"extensions": extensions or None})

    low.get_capabilities = get_capabilities  # type: ignore[method-assign]
