"""The `show_memory` handler: the caller's memories by type and its candidates, for people.

The text lists them one a line (what a host without MCP Apps shows); with the row's
`structured_output` the same data is structuredContent for the memory view
(`ui://memgate/memory`). The dispatcher passes the name of the caller's review row when the
caller may call it (`HandlerSpec.offers`), so the view offers Approve and Reject only then.
"""

from __future__ import annotations

from pydantic import Field

from .spec import AppUi, HandlerSpec, StrictArgs

RESOURCE_URI = "ui://memgate/memory"


class ShowMemoryArgs(StrictArgs):
    limit: int = Field(50, ge=1, le=500)


#: ToolOutput.structured of show_memory (manager/promotion/memory_view.py)
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "view": {"const": "memory"},
        "memories": {"type": "array", "items": {"type": "object"}},
        "candidates": {"type": "array", "items": {"type": "object"}},
        "review_tool": {"type": ["string", "null"]},
        "more": {"type": "boolean"},
    },
    "required": ["view", "memories", "candidates", "review_tool", "more"],
}

SPEC = HandlerSpec(
    "show_memory",
    "show_memory",
    ShowMemoryArgs,
    charged=False,
    output_schema=OUTPUT_SCHEMA,
    ui=AppUi(RESOURCE_URI, ("model", "app")),
    offers=("review_candidate", "review_tool"),
)
