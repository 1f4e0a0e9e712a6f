"""The `link_memory` handler: a typed link between two memories the caller can see. It writes.

Not in the default toolbox: an operator enables it (config/toolbox.links.json). Both ids
are read through the caller's wall before anything is written; an id the caller cannot
see is refused naming the field, whether it exists elsewhere or not.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .spec import HandlerSpec, StrictArgs

Relation = Literal[
    "supersedes",
    "refines",
    "supports",
    "duplicates",
    "contradicts",
    "is_superseded_by",
    "is_refined_by",
    "is_supported_by",
    "is_duplicated_by",
    "is_contradicted_by",
]
MemoryType = Literal["entity", "workflow", "summary", "kb_document", "kb_chunk", "conversation", "image"]


class LinkMemoryArgs(StrictArgs):
    from_id: str = Field(min_length=1, max_length=200)
    link_type: Relation
    to_id: str = Field(min_length=1, max_length=200)
    from_type: MemoryType | None = None
    to_type: MemoryType | None = None
    note: str | None = Field(None, min_length=1, max_length=1000)


def link_hints(policy: dict[str, Any], schema: dict[str, Any]) -> dict[str, bool]:
    """It writes a row, so not read-only; adding the same link again changes nothing; it removes nothing."""
    return {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}


_LINK = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "from_type": {"type": "string"},
        "from_id": {"type": "string"},
        "link_type": {"type": "string"},
        "to_type": {"type": "string"},
        "to_id": {"type": "string"},
        "provenance": {"type": "string"},
    },
    "required": ["id", "from_id", "link_type", "to_id"],
}
#: ToolOutput.structured of link_memory (manager/links/render.py written)
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {"link": _LINK, "created": {"type": "boolean"}},
    "required": ["link", "created"],
}

SPEC = HandlerSpec("link_memory", "link_memory", LinkMemoryArgs, hints=link_hints, output_schema=OUTPUT_SCHEMA)
