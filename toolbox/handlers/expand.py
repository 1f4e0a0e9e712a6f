"""The `expand` handler: the full content of a pointer or summary issued in the caller's current window,
or an image a result showed the caller, with its bytes (an MCP ImageContent) when include_bytes is true."""

from __future__ import annotations

from pydantic import Field

from .spec import HandlerSpec, StrictArgs


class ExpandArgs(StrictArgs):
    memory_id: str = Field(min_length=1, max_length=200)
    include_bytes: bool = False


SPEC = HandlerSpec("expand", "expand", ExpandArgs)
