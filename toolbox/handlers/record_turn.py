"""The `record_turn` handler: the agent appends a turn of its own conversation (its thread). It writes.

Not in the default toolbox: an operator enables it for an IDE agent that owns its transcript
(config/toolbox.turns.json). The turn is the caller's, in the caller's thread (or server session),
exactly as `memgate turn add` and the Manager's record_turn write it; it is not a tool round.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .spec import HandlerSpec, StrictArgs


class RecordTurnArgs(StrictArgs):
    role: Literal["user", "assistant"]
    text: str = Field(min_length=1, max_length=100_000)


def turn_hints(policy: dict[str, Any], schema: dict[str, Any]) -> dict[str, bool]:
    """It appends a row: not read-only, not idempotent (each call is a new turn), removes nothing."""
    return {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}


OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {"turn_id": {"type": "string"}, "turn_index": {"type": ["integer", "null"]}},
    "required": ["turn_id"],
}

SPEC = HandlerSpec(
    "record_turn", "append_turn", RecordTurnArgs, hints=turn_hints, output_schema=OUTPUT_SCHEMA, charged=False
)
