"""What a manager method hands back for one tool call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ImageData:
    """An image a result carries beside its text, only when the caller asked for its bytes."""

    mime_type: str
    data: bytes = field(repr=False)
    #: what the model is likely to pay for it, charged to a context window's tool reserve
    tokens: int = 0


@dataclass(frozen=True)
class ToolOutput:
    """Compact text for the model plus the numbers the call log records."""

    text: str
    rows: int = 0
    truncated: bool = False
    tokens: int = 0
    cited_ids: tuple[str, ...] = ()
    structured: dict[str, Any] | None = field(default=None, compare=False)
    #: a result the model should read as an error (e.g. the memory tool's contract errors)
    is_error: bool = False
    #: the mcp_call_log status for this result; an is_error result usually says "invalid"
    status: str = "ok"
    #: the text is a fixed shape a host parses (ChatGPT's search and fetch JSON): a tool round
    #: records it as it is, without the provenance line it puts before other results
    wire_format: bool = False
    #: images sent after the text (the server makes each an MCP ImageContent); never logged
    images: tuple[ImageData, ...] = field(default=(), compare=False)
    #: one line about the call rather than its result (a spent context window): shown before the
    #: text (not for a wire-format result) and in the result's _meta
    notice: str | None = None
