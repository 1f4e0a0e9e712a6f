"""The tool registry: toolbox rows → MCP tools, the handler allowlist, access policy."""

from .dispatch import CallContext, ToolDispatcher
from .handlers import HANDLERS, HandlerSpec, register
from .provider import ToolboxProvider
from .rows import RowRefused, tool_from_row

__all__ = ["HANDLERS", "CallContext", "HandlerSpec", "RowRefused", "ToolDispatcher",
           "ToolboxProvider", "register", "tool_from_row"]
