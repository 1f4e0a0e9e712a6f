"""The default toolbox rows shipped in config/toolbox.json."""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ConfigError

#: sha256 (schema_digest) of tool_schemas an earlier memgate seeded by default, by tool name:
#: `memgate init` moves a row still holding one to the current default schema.
RETIRED_SCHEMAS = {
    # execute_query named its SQL argument `sql`; the toolbox contract calls it `query`.
    "execute_query": frozenset({"bc61204ffe432ad315182bc731caf3c1303e2c1c5c8b2273ccc28aa08eab4a87"}),
}


def schema_digest(schema: dict[str, Any]) -> str:
    """The sha256 of a tool_schema as seeding stores it (JSON, keys sorted)."""
    return hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()


def load_tool_definitions(path: str | Path | None = None) -> list[dict[str, Any]]:
    source = Path(path) if path else resources.files("memgate.config").joinpath("toolbox.json")
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read toolbox definitions from {source}: {exc}") from exc
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(tools, list):
        raise ConfigError(f"{source} must hold an object with a \"tools\" list")
    for i, t in enumerate(tools):
        missing = {"tool_name", "tool_handler", "usage_notes", "tool_schema"} - set(t)
        if missing:
            raise ConfigError(f"{source}: tools[{i}] lacks {sorted(missing)}", field=f"tools[{i}]")
    return tools
