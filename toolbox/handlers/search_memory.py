"""The `search_memory` handler: hybrid retrieval over the caller's knowledge base, bounded."""

from __future__ import annotations

from pydantic import Field

from .spec import HandlerSpec, StrictArgs


class SearchMemoryArgs(StrictArgs):
    query: str = Field(min_length=1, max_length=2000)
    collection: str | None = Field(None, min_length=1, max_length=200)
    max_results: int | None = Field(None, ge=1, le=50)


SPEC = HandlerSpec("search_memory", "search_memory", SearchMemoryArgs)
