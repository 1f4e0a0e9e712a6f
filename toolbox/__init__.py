"""The tool registry: toolbox rows → MCP tools, the handler allowlist, access policy.

May import: memgate.manager (its package, never a submodule), fastmcp and mcp. Knows no SQL.
"""

from .agent_errors import invalid_arguments
from .argument_values import argument_problem
from .dispatch import CallContext, CallContextResolver, ToolDispatcher
from .handlers import HANDLERS, HandlerSpec
from .handlers.execute_query import FUNCTIONS_URI
from .policy import missing_scopes
from .provider import ToolboxProvider
from .request_rows import rows_read
from .rows import check_row, tool_from_row

__all__ = [
    "FUNCTIONS_URI",
    "HANDLERS",
    "CallContext",
    "CallContextResolver",
    "HandlerSpec",
    "ToolDispatcher",
    "ToolboxProvider",
    "argument_problem",
    "check_row",
    "invalid_arguments",
    "missing_scopes",
    "rows_read",
    "tool_from_row",
]
