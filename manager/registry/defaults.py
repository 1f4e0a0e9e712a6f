"""The default toolbox rows shipped in config/toolbox.json."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ConfigError


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
