"""The `search_memory` handler: hybrid retrieval over the caller's knowledge base, bounded.

num_hops (0..2) adds each chunk's linked memories; include_invalid_results lets chunks
whose lifecycle has ended be direct results, labelled historical.
"""

from __future__ import annotations

from pydantic import Field

from .spec import LINKED, HandlerSpec, StrictArgs


class SearchMemoryArgs(StrictArgs):
    query: str = Field(min_length=1, max_length=2000)
    collection: str | None = Field(None, min_length=1, max_length=200)
    max_results: int | None = Field(None, ge=1, le=50)
    num_hops: int = Field(0, ge=0, le=2)
    max_linked_results: int = Field(5, ge=1, le=20)
    include_invalid_results: bool = False


_RANK = {"type": ["integer", "null"]}
#: ToolOutput.structured of search_memory (manager/kb/render.py): the chunks (and images) the text shows, best first
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "results": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "document_id": {"type": "string"},
                    "title": {"type": "string"},
                    "collection": {"type": "string"},
                    "position": {"type": "integer"},
                    "chunks": {"type": "integer"},
                    "tokens": {"type": "integer"},
                    "score": {"type": "number"},
                    "lexical_rank": _RANK,
                    "vector_rank": _RANK,
                    "cosine": {"type": ["number", "null"]},
                    "folded": {"type": "integer"},
                    "linked": LINKED,
                    # an image's record (type "image"): its numbers, never its bytes
                    "type": {"type": "string"},
                    "mime_type": {"type": "string"},
                    "width": {"type": "integer"},
                    "height": {"type": "integer"},
                    "bytes": {"type": "integer"},
                },
                "required": ["id", "document_id", "score"],
            },
        },
    },
    "required": ["results"],
}

SPEC = HandlerSpec("search_memory", "search_memory", SearchMemoryArgs, output_schema=OUTPUT_SCHEMA)
