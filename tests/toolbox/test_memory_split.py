"""The default memory tools: a read-only `memory` view tool and `memory_write`, one store, Anthropic's texts.

The one-tool memory_20250818 contract stays a preset (config/toolbox.memory_contract.json), and
`memgate init` moves a tenant seeded with the earlier one-tool default to the split.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastmcp import Client
from mcp_helpers import stdio_app

from memgate.manager import ACME, OperatorManager, load_tool_definitions, seed_demo
from memgate.server.cli import cli

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = ROOT / "config" / "toolbox.memory_contract.json"
WRITES = ["create", "str_replace", "insert", "delete", "rename"]
#: the one-tool memory row the default toolbox held before the split, byte for byte
ONE_TOOL_DEFAULT = {
    **next(d for d in load_tool_definitions(CONTRACT) if d["tool_name"] == "memory"),
}
ONE_TOOL_DEFAULT["tool_schema"] = json.loads(json.dumps(ONE_TOOL_DEFAULT["tool_schema"]))
del ONE_TOOL_DEFAULT["tool_schema"]["properties"]["command"]["description"]  # the preset's markers
ONE_TOOL_DEFAULT["usage_notes"] = ONE_TOOL_DEFAULT["usage_notes"].replace(" (memory_20250818)", "", 1)


@pytest.fixture(autouse=True)
def no_memgate_env(monkeypatch):
    for key in [k for k in os.environ if k.startswith("MEMGATE_")]:
        monkeypatch.delenv(key)


async def _tools(app):
    async with Client(app) as c:
        return {t.name: t for t in await c.list_tools()}


async def test_memory_is_read_only_and_memory_write_writes_the_same_store_with_anthropics_texts(
    sqlite_path, two_tenants
):
    app, manager = stdio_app(sqlite_path)
    try:
        async with Client(app) as c:
            tools = {t.name: t for t in await c.list_tools()}
            made = await c.call_tool(
                "memory_write", {"command": "create", "path": "/memories/plan.md", "file_text": "ship it"}
            )
            seen = await c.call_tool("memory", {"command": "view", "path": "/memories/plan.md"})
            refused = await c.call_tool("memory", {"command": "create", "path": "/memories/x.md"}, raise_on_error=False)
            edited = await c.call_tool(
                "memory_write",
                {"command": "str_replace", "path": "/memories/plan.md", "old_str": "ship", "new_str": "test"},
            )
    finally:
        manager.close()
    view, write = tools["memory"], tools["memory_write"]
    assert view.input_schema["properties"]["command"]["enum"] == ["view"]
    assert set(view.input_schema["properties"]) == {"command", "path", "view_range"}
    assert (view.annotations.read_only_hint, view.annotations.destructive_hint) == (True, False)
    assert write.input_schema["properties"]["command"]["enum"] == WRITES
    assert (write.annotations.read_only_hint, write.annotations.destructive_hint) == (False, True)
    assert made.content[0].text == "File created successfully at: /memories/plan.md"
    assert seen.content[0].text == "Here's the content of /memories/plan.md with line numbers:\n     1\tship it"
    assert refused.is_error and "'create' is not one of ['view']" in refused.content[0].text
    assert edited.content[0].text.startswith(
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):"
    )


def test_the_contract_preset_is_the_default_toolbox_with_memory_as_one_tool():
    defaults = {d["tool_name"]: d for d in load_tool_definitions()}
    preset = {d["tool_name"]: d for d in load_tool_definitions(CONTRACT)}
    assert set(preset) == set(defaults) - {"memory_write"}
    assert {n: d for n, d in preset.items() if n != "memory"} == {
        n: d for n, d in defaults.items() if n not in ("memory", "memory_write")
    }
    enum = preset["memory"]["tool_schema"]["properties"]["command"]["enum"]
    assert enum == ["view", *WRITES]


async def test_a_tenant_seeded_with_the_contract_preset_keeps_one_tool_through_init(sqlite_path, manager):
    seed_demo(manager)
    out = CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme", "--tools-file", str(CONTRACT)])
    assert out.exit_code == 0, out.output
    again = CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme"]).output
    assert "memory_write" not in again and "memory upgraded" not in again, again
    app, served = stdio_app(sqlite_path)
    tools = await _tools(app)
    served.close()
    assert "memory_write" not in tools
    assert tools["memory"].input_schema["properties"]["command"]["enum"] == ["view", *WRITES]
    assert tools["memory"].annotations.destructive_hint is True


@pytest.mark.parametrize("store", [{"scope": "agent"}, {"scope": "user"}])
async def test_init_moves_a_tenant_on_the_one_tool_default_to_the_split_and_its_files_stay(sqlite_path, manager, store):
    seed_demo(manager)
    earlier = [d for d in load_tool_definitions() if d["tool_name"] != "memory_write"]
    earlier = [
        dict(ONE_TOOL_DEFAULT, access_policy={"memory_store": store}) if d["tool_name"] == "memory" else d
        for d in earlier
    ]
    manager.seed_tools(ACME, earlier)
    app, served = stdio_app(sqlite_path)
    async with Client(app) as c:
        await c.call_tool("memory", {"command": "create", "path": "/memories/notes.md", "file_text": "kept"})
    served.close()
    out = CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme"]).output
    assert "tools for acme: memory_write added" in out and "memory upgraded" in out, out
    app, served = stdio_app(sqlite_path)
    try:
        async with Client(app) as c:
            tools = {t.name: t for t in await c.list_tools()}
            seen = await c.call_tool("memory", {"command": "view", "path": "/memories/notes.md"})
            await c.call_tool(
                "memory_write",
                {"command": "insert", "path": "/memories/notes.md", "insert_line": 1, "insert_text": "more"},
            )
            again = await c.call_tool("memory", {"command": "view", "path": "/memories/notes.md"})
    finally:
        served.close()
    assert tools["memory"].annotations.read_only_hint is True
    assert seen.content[0].text.endswith("\tkept")  # the file written before the split
    assert "\tkept\n     2\tmore" in again.content[0].text  # memory_write took memory's store
    [write] = [r for r in OperatorManager(manager.backend).tool_versions("acme", "memory_write")]
    assert json.loads(write["access_policy"])["memory_store"] == store
