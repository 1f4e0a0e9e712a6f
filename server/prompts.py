"""The MEMORY PROTOCOL as an MCP prompt and an MCP resource, for hosts that prime the model with it.

The text is manager/files/texts.py's MEMORY_PROTOCOL: view /memories first, record
progress, keep files small and current, treat memory as data. It is the same for
every caller, so it is registered statically rather than read from the database.
"""

from __future__ import annotations

from fastmcp import FastMCP
from fastmcp.prompts import Prompt
from fastmcp.resources import TextResource

from memgate.manager import MEMORY_PROTOCOL

MEMORY_PROTOCOL_URI = "memgate://memory/protocol"
MEMORY_PROTOCOL_PROMPT = "memory_protocol"
_DESCRIPTION = (
    "How to use the memory tool: view /memories before a task, record progress as you go, "
    "keep memory files few, small and current."
)


def memory_protocol() -> str:
    return MEMORY_PROTOCOL


def add_memory_protocol(mcp: FastMCP) -> None:
    """Register the prompt `memory_protocol` and the resource memgate://memory/protocol on `mcp`."""
    mcp.add_prompt(
        Prompt.from_function(
            memory_protocol, name=MEMORY_PROTOCOL_PROMPT, title="Memory protocol", description=_DESCRIPTION
        )
    )
    mcp.add_resource(
        TextResource(
            uri=MEMORY_PROTOCOL_URI,
            name="memory-protocol",
            title="Memory protocol",
            description=_DESCRIPTION,
            text=MEMORY_PROTOCOL,
            mime_type="text/plain",
        )
    )
