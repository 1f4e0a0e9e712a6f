"""The `execute_query` handler: governed read-only SQL over the reviewed views.

Its tool description is the row's usage_notes plus the views and columns the caller
may query, generated from the database catalog on every list (not hand-kept), so the
agent needs no exploration calls. The function allowlist is summarised by family there;
the full list is the resource FUNCTIONS_URI (server/resources.py).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from memgate.manager import ROWS_CEILING

from .spec import HandlerSpec, StrictArgs


class ExecuteQueryArgs(StrictArgs):
    # No max_length: admission refuses long queries with rule "length" and the fix.
    query: str = Field(min_length=1)
    # Clamped to caps.max_rows by the manager; the ceiling only bounds the argument.
    max_rows: int | None = Field(None, ge=1, le=ROWS_CEILING)
    # ISO-8601: every reviewed view answers as of that moment (the manager parses and bounds it)
    as_of: str | None = Field(None, min_length=1, max_length=40)


#: the MCP resource listing every function a query may call (the description lists only families)
FUNCTIONS_URI = "memgate://query/functions"


def describe_query_views(manager: Any, identity: Any) -> str:
    return manager.query_views_help(functions_at=FUNCTIONS_URI)


SPEC = HandlerSpec(
    "execute_query", "execute_query", ExecuteQueryArgs, describe=describe_query_views, renamed={"sql": "query"}
)
