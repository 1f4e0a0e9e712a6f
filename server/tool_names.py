"""Over-long tool names are clipped as a call comes in, before anything logs or echoes them.

MCP caps a tool name at 128 characters, so no listed tool has a longer one. FastMCP logs
the requested name ("Error calling tool ...") and answers an unknown one with it
("Unknown tool: ..."), so a megabyte name reached stderr and the client whole. A longer
name is replaced by its clipped echo (`xxxx…(1,000,000 characters)`), which cannot match a
listed tool because it holds "…": the call is denied and logged as any unknown name is.
"""

from __future__ import annotations

from fastmcp.server.middleware import Middleware

from memgate.manager import clip_echo

__all__ = ["MAX_TOOL_NAME", "ClipToolNames"]

#: the longest tool name MCP allows
MAX_TOOL_NAME = 128


class ClipToolNames(Middleware):
    async def on_call_tool(self, context, call_next):
        name = context.message.name
        if len(name) > MAX_TOOL_NAME:
            clipped = clip_echo(name, MAX_TOOL_NAME - 30)
            context = context.copy(message=context.message.model_copy(update={"name": clipped}))
        return await call_next(context)
