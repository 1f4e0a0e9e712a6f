"""The default toolbox rows shipped in config/toolbox.json."""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import ConfigError

#: the default memory tools: a read-only view tool and the write tool beside it (one store)
MEMORY_READ, MEMORY_WRITE = "memory", "memory_write"

#: sha256 (schema_digest) of tool_schemas an earlier memgate seeded by default, by tool name:
#: `memgate init` moves a row still holding one to the current default schema.
RETIRED_SCHEMAS = {
    "expand": frozenset(
        {
            # had no include_bytes (an image's bytes beside its record)
            "32553db52be8ea0dbc25555cd6f292ba1a66ec3ec43057d808cf2d33d6f74172",
            # bounded memory_id's length in the schema (ExpandArgs does) and described it at length
            "7f55a866a37bc6633ab62504fa31dc8469449b4eae76ce35804550f12fec7fe6",
        }
    ),
    # described its arguments and bounded the question in the schema (ClarifyArgs does): the menu
    # made room for remember
    "clarify": frozenset({"07928e5774c5a73be16b3e928e469441b56f09fb73254b4e73ddb1893a1e3c88"}),
    "execute_query": frozenset(
        {
            # named its SQL argument `sql`; the toolbox contract calls it `query`
            "bc61204ffe432ad315182bc731caf3c1303e2c1c5c8b2273ccc28aa08eab4a87",
            # described each property at length; the menu now costs a fraction of the tokens
            "dd17503fa09ed8feb1192251be6489ee4d8f0804239cecf5a41358d208a593dd",
            # before as_of (the rows as they stood at a past moment)
            "f35f1054607526e0ad76fa6107f919dad77607c441e621455d623ee630be4831",
        }
    ),
    "lookup_entity": frozenset(
        {
            "a4d997f7c31080d260533edf7cfbaa33517e9fea63ce6eb4b3a3945815a4a066",
            # before num_hops and max_linked_results (links)
            "5e927bac7933bb088e8a34d3166658f6c035352cf2bd48de016065892c81c2f5",
            # before as_of (the claim as it stood at a past moment); include_history stated its default
            "64c75afe3018ae747ad7e9ee5a1cc962aeb4c77cdfa33fca5d2c22ed98d2ad58",
        }
    ),
    "memory": frozenset(
        {
            "80a7e308a44ebf19d26949e45d15b08d91e5ce458798881db05b8a4e9793fc22",
            # every command in one read+write tool; now view only, writes in memory_write
            # (config/toolbox.memory_contract.json keeps the one-tool contract)
            "25bb180cb51a6312f52691ddd3bc7af0720ac4f4154fb6a9c7be77de13e9c434",
        }
    ),
    "search_memory": frozenset(
        {
            "936b6f0d4d4fa076732d3f7d4f07e32d4c48877b4b1506079638ae18d6dff171",
            # before num_hops, max_linked_results and include_invalid_results (links)
            "1cea429d3343c7b80a55d08d181b292e3b3731352a7ead3d9b09d0f735f55834",
        }
    ),
}
#: sha256 (notes_digest) of usage_notes an earlier memgate seeded by default, by tool name: init
#: gives a row still holding one the current default's notes.
RETIRED_NOTES = {
    # said to keep files few and current (the menu made room for remember and the memory split)
    "memory_write": frozenset({"c0188ff22d1859cf395b43360665383b240539e55004fc225607fb4126dc0e3a"}),
    "expand": frozenset(
        {
            # said only ids issued in the current window work (an image a result showed works too)
            "1cb8323837983d6b45cb9f1a62e47e1f39f3528dab73798b058c5723b21d1060",
            # longer words for the same rules (the menu made room for remember)
            "86f0fe0d521f4827314b03cd2f3fc98a4007d3f8202b8c6859513466b576286e",
        }
    ),
    "clarify": frozenset({"44226f2f54419565a0c88f18b416ee3a98dbba80c38ac18184048b9a3d098e39"}),
    "execute_query": frozenset(
        {
            "d61830c146a8d6e5007c1e34c6fca7cf4bd33e830853ec038318b2e5442757ea",
            # before the menu made room for remember and the memory split
            "bf69b88e6d8b9953f1363140f5eaf2b516078ce2cbeeb84bfca41db49f6cf81b",
        }
    ),
    "lookup_entity": frozenset(
        {
            # before the menu made room for remember and the memory split
            "d751a7547e6a93adf7b9e6c8007d8d4e21d63ae83649ec7aff3fd79b1c40609b",
            "7b8df2d537050ef9941ea0825bf0f154130006fc205e7ad12688290a2d84179f",
            "458f32092b1b2488b464250b853faafc564b6dcd3adf210b78a014d1d26b27e4",
        }
    ),
    "memory": frozenset(
        {
            "75c66298be3dca27b6f1513b1a5fd61a6d1b2796ce11504870723260dd2b0340",
            # the commands' arguments at greater length (the menu made room for remember)
            "7f2fdd8137b730bfc7b21acacedea457d0a74800fe306658ef1a16dcee2ba537",
        }
    ),
    "search_memory": frozenset(
        {
            # before the menu made room for remember and the memory split
            "beb58bda9a3e34fca0d83b3d5bfc5e4a335888b86bcfcb348addf919f81badbd",
            "2959389cbb761ffc9ed51736295f97a921dbf04d866b8b3ccc59a28381cb35ec",
            "94d4fbe5b2ef3d57708981649299088be85a43ad5e11c5a22844aefc0eda23be",
        }
    ),
}


def schema_digest(schema: dict[str, Any]) -> str:
    """The sha256 of a tool_schema as seeding stores it (JSON, keys sorted)."""
    return hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()


def notes_digest(notes: str) -> str:
    """The sha256 of usage_notes as seeding stores them (stripped)."""
    return hashlib.sha256(notes.strip().encode()).hexdigest()


def load_tool_definitions(path: str | Path | None = None) -> list[dict[str, Any]]:
    source = Path(path) if path else resources.files("memgate.config").joinpath("toolbox.json")
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read toolbox definitions from {source}: {exc}") from exc
    tools = data.get("tools") if isinstance(data, dict) else None
    if not isinstance(tools, list):
        raise ConfigError(f'{source} must hold an object with a "tools" list')
    for i, t in enumerate(tools):
        missing = {"tool_name", "tool_handler", "usage_notes", "tool_schema"} - set(t)
        if missing:
            raise ConfigError(f"{source}: tools[{i}] lacks {sorted(missing)}", field=f"tools[{i}]")
    return tools
