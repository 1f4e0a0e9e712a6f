"""The `lookup_entity` handler: the current version of a canonical claim, with labeled history."""

from __future__ import annotations

from pydantic import Field

from .spec import HandlerSpec, StrictArgs


class LookupEntityArgs(StrictArgs):
    subject: str = Field(min_length=1, max_length=400)
    predicate: str | None = Field(None, min_length=1, max_length=400)
    include_history: bool = True


SPEC = HandlerSpec("lookup_entity", "lookup_entity", LookupEntityArgs)
