"""The `memory` handler: Anthropic's memory-tool commands (memory_20250818) as MCP tools.

The default toolbox serves it as two rows: `memory`, offering only `view` (read-only, so
hosts do not ask to confirm every look), and `memory_write` with the other five commands,
on the same store; config/toolbox.memory_contract.json serves it as the one contract tool.

Parameter names are the contract's (the anthropic SDK's `BetaMemoryTool20250818*Command`
models; LangChain JS `Memory20250818CommandSchema` matches), so a model trained on the
memory tool calls this one the same way. The row's access_policy may allow a subset of
the commands (`"allowed_commands": ["view"]` makes a read-only memory); the advertised
schema then offers only those commands and their parameters, and the annotations say
read-only.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import Field

from memgate.manager import MEMORY_COMMANDS as COMMANDS
from memgate.manager import InvalidArgument

from .spec import READ_ONLY, HandlerSpec, StrictArgs

#: commands that change or remove what a file held (create refuses to overwrite; insert only adds)
DESTRUCTIVE = frozenset({"str_replace", "delete", "rename"})


class MemoryArgs(StrictArgs):
    # Per-command required parameters are checked by the manager, which answers with text
    # the model can act on; the schema only types them.
    command: str = Field(min_length=1, max_length=40)
    path: str | None = None
    view_range: list[int] | None = None
    file_text: str | None = None
    old_str: str | None = None
    new_str: str | None = None
    insert_line: int | None = None
    insert_text: str | None = None
    old_path: str | None = None
    new_path: str | None = None


def shape_memory_schema(schema: dict[str, Any], policy: dict[str, Any]) -> dict[str, Any]:
    """Offer only the commands the row allows, and only the parameters those commands take."""
    allowed = policy.get("allowed_commands")
    if allowed is None:
        return schema
    unknown = sorted(set(allowed) - set(COMMANDS))
    if unknown or not allowed:
        raise InvalidArgument(
            f"access_policy.allowed_commands must name memory commands {list(COMMANDS)}, got {allowed!r}",
            field="access_policy.allowed_commands",
        )
    shaped = copy.deepcopy(schema)
    props = shaped.setdefault("properties", {})
    command = props.setdefault("command", {"type": "string"})
    offered = command.get("enum", list(COMMANDS))
    command["enum"] = [c for c in offered if c in allowed]
    if not command["enum"]:
        raise InvalidArgument(
            f"access_policy.allowed_commands {allowed!r} allows none of the schema's commands {offered!r}",
            field="access_policy.allowed_commands",
        )
    used = {"command"} | {p for c in command["enum"] for group in COMMANDS[c] for p in group}
    for name in list(props):
        if name not in used:
            del props[name]
    return shaped


def memory_hints(policy: dict[str, Any], schema: dict[str, Any]) -> dict[str, bool]:
    """Read-only when the row offers only `view` (its schema's enum, shaped by allowed_commands)."""
    offered = set(schema.get("properties", {}).get("command", {}).get("enum", COMMANDS))
    if offered <= {"view"}:
        return dict(READ_ONLY)
    return {
        "readOnlyHint": False,
        "destructiveHint": bool(offered & DESTRUCTIVE),
        "idempotentHint": False,
        "openWorldHint": False,
    }


SPEC = HandlerSpec(
    "memory", "memory", MemoryArgs, shape_schema=shape_memory_schema, takes_policy=True, hints=memory_hints
)
