"""What a handler is: one Memory Manager method, its strict argument model, and optional hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = [
    "HINTS",
    "LINKED",
    "READ_ONLY",
    "AppUi",
    "Describer",
    "HandlerSpec",
    "Hinter",
    "Interaction",
    "RowArguments",
    "SchemaShaper",
    "StrictArgs",
]

SchemaShaper = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
#: (manager, identity) -> text appended to the row's usage_notes in the tool description
Describer = Callable[[Any, Any], str]
#: (validated arguments) -> more keyword arguments for the method, or a ToolResult to answer with now;
#: runs in the request's event loop, so it may talk to the client (elicitation)
Interaction = Callable[[dict[str, Any]], Awaitable[dict[str, Any] | Any]]
#: (access_policy, validation schema) -> the MCP tool annotations (HINTS) the handler gives a row by default
Hinter = Callable[[dict[str, Any], dict[str, Any]], dict[str, bool]]
#: (validated arguments, the row's tool_schema) -> the method's keyword arguments
RowArguments = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]

#: the MCP tool annotations a row states, and what each tells a host
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
#: reads the caller's own memory and nothing else: hosts may skip confirmation
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}


#: the outputSchema of a result's linked memories (manager/links/traverse.py Linked.as_json)
LINKED = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "type": {"type": "string"},
            "relation": {"type": "string"},
            "direction": {"type": "string", "enum": ["in", "out"]},
            "linked_to": {"type": "string"},
            "hop": {"type": "integer"},
            "status": {"type": "string", "enum": ["current", "historical"]},
            "link_id": {"type": "string"},
        },
        "required": ["id", "type", "relation", "direction", "linked_to", "hop", "status"],
    },
}


@dataclass(frozen=True)
class AppUi:
    """A tool's link to its MCP App view (SEP-1865): the ui:// resource and who may call it."""

    resource_uri: str
    #: "model": on the agent's tool list; "app": callable from the view (a host enforces both)
    visibility: tuple[str, ...] = ("model", "app")

    def meta(self) -> dict[str, Any]:
        """`_meta.ui` and the flat key the spec still lists (deprecated, read by older hosts)."""
        return {
            "ui": {"resourceUri": self.resource_uri, "visibility": list(self.visibility)},
            "ui/resourceUri": self.resource_uri,
        }


class StrictArgs(BaseModel):
    """No coercion ("25" is not an integer) and no unknown fields: a second check after the row's schema."""

    model_config = ConfigDict(extra="forbid", strict=True)


def read_only(policy: dict[str, Any], schema: dict[str, Any]) -> dict[str, bool]:
    return dict(READ_ONLY)


@dataclass(frozen=True)
class HandlerSpec:
    name: str
    #: the MemoryManager method this handler calls: method(identity, **arguments)
    method: str
    #: the strict argument model; None when the row's tool_schema defines the arguments (row_arguments)
    args_model: type[StrictArgs] | None
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
    #: the annotations a row gets unless its access_policy.annotations says otherwise
    hints: Hinter = read_only
    #: the JSON Schema of ToolOutput.structured, for rows with access_policy.structured_output
    output_schema: dict[str, Any] | None = None
    #: for handlers without args_model: the method's kwargs from the validated arguments
    row_arguments: RowArguments | None = None
    #: more checks of a row (its policy, its schema) than the shared ones; raises InvalidArgument
    check_row: Callable[[Any], None] | None = None
    #: the MCP App view that renders this handler's structuredContent (the tool's `_meta.ui`)
    ui: AppUi | None = None
    #: (handler, keyword): pass the method the name of the caller's row with that handler, when the
    #: caller may call it, else None (show_memory offers the review buttons only then)
    offers: tuple[str, str] | None = None
