"""The handler allowlist: each handler is one Memory Manager method and its argument model.

A toolbox row names a handler; only names in HANDLERS can become tools. The
argument model is strict (no coercion: "25" is not an integer) and forbids
unknown fields, as a second check after the row's own JSON Schema.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SchemaShaper = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
#: (manager, identity) -> text appended to the row's usage_notes in the tool description
Describer = Callable[[Any, Any], str]


class StrictArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class LookupEntityArgs(StrictArgs):
    subject: str = Field(min_length=1, max_length=400)
    predicate: str | None = Field(None, min_length=1, max_length=400)
    include_history: bool = True


@dataclass(frozen=True)
class HandlerSpec:
    name: str
    #: the MemoryManager method this handler calls: method(identity, **arguments)
    method: str
    args_model: type[StrictArgs]
    #: optional: adapts the row's schema to its access_policy before it is advertised
    shape_schema: SchemaShaper | None = None
    #: pass the row's access_policy to the method as `policy=` (e.g. memory store selection)
    takes_policy: bool = False
    #: optional: generated help (e.g. execute_query's views and columns from the catalog)
    describe: Describer | None = None


HANDLERS: dict[str, HandlerSpec] = {}


def register(spec: HandlerSpec) -> HandlerSpec:
    if spec.name in HANDLERS:
        raise ValueError(f"handler {spec.name!r} is registered twice")
    HANDLERS[spec.name] = spec
    return spec


register(HandlerSpec("lookup_entity", "lookup_entity", LookupEntityArgs))
# execute_query (issue 4) registers here
from . import query_handler  # noqa: E402,F401 - registers "execute_query" (same safe cycle as memory_handler)
# memory (issue 5) registers here
from . import memory_handler  # noqa: E402,F401 - registers "memory" (import cycle is safe: see that module)
# search_memory (issue 6) registers here


class SearchMemoryArgs(StrictArgs):
    query: str = Field(min_length=1, max_length=2000)
    collection: str | None = Field(None, min_length=1, max_length=200)
    max_results: int | None = Field(None, ge=1, le=50)


register(HandlerSpec("search_memory", "search_memory", SearchMemoryArgs))

#: handlers the design names; the ones not registered yet arrive with their issues
PLANNED_HANDLERS = ("search_memory", "lookup_entity", "expand", "clarify", "execute_query", "memory")
