"""The tool registry: toolbox rows → MCP tools, the handler allowlist, access policy.

May import: memgate.manager (its package, never a submodule), fastmcp and mcp. Knows no SQL.
"""

from .dispatch import CallContext, CallContextResolver, ToolDispatcher
from .handlers import HANDLERS, HandlerSpec
from .provider import ToolboxProvider
from .rows import check_row, tool_from_row

__all__ = ["HANDLERS", "CallContext", "CallContextResolver", "HandlerSpec", "ToolDispatcher", "ToolboxProvider",
           "check_row", "tool_from_row"]
