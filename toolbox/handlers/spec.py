"""What a handler is: one Memory Manager method, its strict argument model, and optional hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["Describer", "HandlerSpec", "Interaction", "SchemaShaper", "StrictArgs"]

SchemaShaper = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
#: (manager, identity) -> text appended to the row's usage_notes in the tool description
Describer = Callable[[Any, Any], str]
#: (validated arguments) -> more keyword arguments for the method, or a ToolResult to answer with now;
#: runs in the request's event loop, so it may talk to the client (elicitation)
Interaction = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | Any]]


class StrictArgs(BaseModel):
    """No coercion ("25" is not an integer) and no unknown fields: a second check after the row's schema."""

    model_config = ConfigDict(extra="forbid", strict=True)


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
    #: optional: a step with the client before the method runs (clarify asks the user)
    interact: Interaction | None = None
    #: a call is a tool round of the caller's current context window, charged to its tool reserve
    charged: bool = True
    #: arguments an earlier release named differently (old name -> new), so a row that still
    #: uses an old name is refused with a reason that says how to upgrade it
    renamed: dict[str, str] | None = None
