"""The `lookup_entity` handler: the current version of a canonical claim, with labeled history.

num_hops (0..2) adds each version's linked memories (a correction's predecessor as
is_superseded_by); include_invalid_results is include_history by search_memory's name;
as_of (ISO-8601) answers as the claim stood at that moment.
"""

from __future__ import annotations

from pydantic import Field

from .spec import LINKED, HandlerSpec, StrictArgs


class LookupEntityArgs(StrictArgs):
    subject: str = Field(min_length=1, max_length=400)
    predicate: str | None = Field(None, min_length=1, max_length=400)
    include_history: bool = True
    include_invalid_results: bool | None = None
    num_hops: int = Field(0, ge=0, le=2)
    max_linked_results: int = Field(5, ge=1, le=20)
    # ISO-8601; the manager parses it and names the field when it is not one (or is in the future)
    as_of: str | None = Field(None, min_length=1, max_length=40)


_NULLABLE_TEXT = {"type": ["string", "null"]}
#: ToolOutput.structured of lookup_entity (manager/claims/render.py): the versions the text shows
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "claims": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "subject": {"type": "string"},
                    "predicate": {"type": "string"},
                    "version": {"type": "integer"},
                    "status": {"type": "string", "enum": ["current", "superseded", "expired", "deleted", "pending"]},
                    "confidence": {"type": ["number", "null"]},
                    "valid_from": {"type": "string"},
                    "valid_until": _NULLABLE_TEXT,
                    "deleted_at": _NULLABLE_TEXT,
                    "linked": LINKED,
                },
                "required": ["id", "subject", "predicate", "version", "status"],
            },
        },
    },
    "required": ["claims"],
}

SPEC = HandlerSpec("lookup_entity", "lookup_entity", LookupEntityArgs, output_schema=OUTPUT_SCHEMA)
