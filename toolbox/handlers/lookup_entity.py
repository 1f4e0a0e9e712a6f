"""The `lookup_entity` handler: the current version of a canonical claim, with labeled history."""

from __future__ import annotations

from pydantic import Field

from .spec import HandlerSpec, StrictArgs


class LookupEntityArgs(StrictArgs):
    subject: str = Field(min_length=1, max_length=400)
    predicate: str | None = Field(None, min_length=1, max_length=400)
    include_history: bool = True


_NULLABLE_TEXT = {"type": ["string", "null"]}
#: ToolOutput.structured of lookup_entity (manager/claims/render.py): the versions the text shows
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "claims": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string"}, "subject": {"type": "string"}, "predicate": {"type": "string"},
                "version": {"type": "integer"},
                "status": {"type": "string", "enum": ["current", "superseded", "expired", "deleted", "pending"]},
                "confidence": {"type": ["number", "null"]}, "valid_from": {"type": "string"},
                "valid_until": _NULLABLE_TEXT, "deleted_at": _NULLABLE_TEXT,
            },
            "required": ["id", "subject", "predicate", "version", "status"],
        }},
    },
    "required": ["claims"],
}

SPEC = HandlerSpec("lookup_entity", "lookup_entity", LookupEntityArgs, output_schema=OUTPUT_SCHEMA)
