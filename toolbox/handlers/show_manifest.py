"""The `show_manifest` handler: a context manifest of the caller's own windows, for people.

The text is the manifest in a few lines (what a host without MCP Apps shows); with the row's
`structured_output` the same data is structuredContent, which the manifest view
(`ui://memgate/manifest`, server/app_views.py) draws: slices as bars, admitted and excluded
records, supersedes chains, the request and window hashes. Without manifest_id it is the
caller's current window in its thread.
"""

from __future__ import annotations

from pydantic import Field

from .spec import AppUi, HandlerSpec, StrictArgs

RESOURCE_URI = "ui://memgate/manifest"


class ShowManifestArgs(StrictArgs):
    manifest_id: str | None = Field(None, min_length=1, max_length=200)


_SLICE = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "tokens": {"type": "integer"}, "fixed": {"type": "boolean"}},
    "required": ["name", "tokens", "fixed"],
}
#: ToolOutput.structured of show_manifest (manager/context/manifest_view.py)
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "view": {"const": "manifest"},
        "manifest_id": {"type": "string"},
        "intent": {"type": "string"},
        "total": {"type": "integer"},
        "slices": {"type": "array", "items": _SLICE},
        "admitted": {"type": "array", "items": {"type": "object"}},
        "excluded": {"type": "array", "items": {"type": "object"}},
        "history": {"type": "array", "items": {"type": "object"}},
        "request_hash": {"type": "string"},
        "window_hash": {"type": "string"},
    },
    "required": ["view", "manifest_id", "total", "slices", "admitted", "excluded", "history", "request_hash"],
}

SPEC = HandlerSpec(
    "show_manifest",
    "show_manifest",
    ShowManifestArgs,
    charged=False,
    output_schema=OUTPUT_SCHEMA,
    ui=AppUi(RESOURCE_URI, ("model", "app")),
)
