"""The `expand` handler: the full content of a pointer or summary issued in the caller's current window."""

from __future__ import annotations

from pydantic import Field

from .spec import HandlerSpec, StrictArgs


class ExpandArgs(StrictArgs):
    memory_id: str = Field(min_length=1, max_length=200)


SPEC = HandlerSpec("expand", "expand", ExpandArgs)
