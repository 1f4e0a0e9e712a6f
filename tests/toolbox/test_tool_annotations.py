"""Each tool tells hosts what it does to data (MCP annotations), from its toolbox row.

Handlers give defaults (reads are read-only and idempotent; memory writes and can destroy);
a memory row offering only `view` is read-only (the default `memory`; `memory_write` writes); access_policy.annotations overrides them key by
key, and a row that can write may not call itself read-only. A new row version changes them
on the next list, with no restart.
"""

from __future__ import annotations

import copy
import logging
from pathlib import Path

import pytest
from fastmcp import Client
from mcp_helpers import stdio_app

from memgate.manager import load_tool_definitions

#: the toolbox whose `memory` is the one-tool memory_20250818 contract
CONTRACT = Path(__file__).resolve().parents[2] / "config" / "toolbox.memory_contract.json"

pytestmark = pytest.mark.anyio

READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
WRITES = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": False}
#: clarify stores the user's answer as a thread event: a write that destroys nothing
ASKS = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}
EXPECTED = {
    "lookup_entity": READ_ONLY,
    "search_memory": READ_ONLY,
    "execute_query": READ_ONLY,
    "expand": READ_ONLY,
    "memory": READ_ONLY,
    "memory_write": WRITES,
    "clarify": ASKS,
    # remember writes a candidate (maybe a memory) and never removes or overwrites one
    "remember": ASKS,
}


@pytest.fixture
def served(sqlite_path, two_tenants):
    app, manager = stdio_app(sqlite_path)
    yield app, manager, two_tenants[0]
    manager.close()


def _default(name: str, source=None, **policy) -> dict:
    d = copy.deepcopy(next(t for t in load_tool_definitions(source) if t["tool_name"] == name))
    d["access_policy"] = {**d.get("access_policy", {}), **policy}
    return d


async def _listed(client) -> dict:
    return {t.name: t for t in await client.list_tools()}


def _hints(tool) -> dict | None:
    return None if tool.annotations is None else tool.annotations.model_dump(by_alias=True, exclude_none=True)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_every_default_row_is_listed_with_its_annotations_and_only_our_meta(served, mode):
    app, _, _ = served
    async with Client(app, mode=mode) as c:
        tools = await _listed(c)
    defaults = {d["tool_name"] for d in load_tool_definitions()}
    assert defaults <= set(tools)
    for name in defaults:
        assert _hints(tools[name]) == EXPECTED.get(name, READ_ONLY), name
        assert set(tools[name].meta) == {"memgate/toolbox_row", "memgate/version"}, name  # no "fastmcp" tags


async def test_a_memory_row_that_allows_only_view_is_advertised_read_only_once_its_new_version_is_in(served):
    app, manager, acme = served
    manager.put_tool(acme, _default("memory", CONTRACT))
    async with Client(app) as c:
        assert _hints((await _listed(c))["memory"]) == WRITES
        row = manager.put_tool(acme, _default("memory", CONTRACT, allowed_commands=["view"]))
        memory = (await _listed(c))["memory"]
    assert row["version"] == 3 and memory.meta["memgate/version"] == 3
    assert _hints(memory) == READ_ONLY
    assert memory.input_schema["properties"]["command"]["enum"] == ["view"]


async def test_a_memory_row_without_destructive_commands_is_a_write_that_destroys_nothing(served):
    app, manager, acme = served
    manager.put_tool(acme, _default("memory", CONTRACT, allowed_commands=["view", "create", "insert"]))
    async with Client(app) as c:
        memory = (await _listed(c))["memory"]
    assert _hints(memory) == {**WRITES, "destructiveHint": False}


async def test_a_row_overrides_a_default_hint_and_disable_enable_keeps_it(served):
    app, manager, acme = served
    manager.put_tool(acme, _default("lookup_entity", annotations={"openWorldHint": True, "idempotentHint": False}))
    async with Client(app) as c:
        assert _hints((await _listed(c))["lookup_entity"]) == {
            **READ_ONLY,
            "openWorldHint": True,
            "idempotentHint": False,
        }
        manager.set_tool_enabled(acme, "lookup_entity", False)
        assert "lookup_entity" not in await _listed(c)
        manager.set_tool_enabled(acme, "lookup_entity", True)
        again = (await _listed(c))["lookup_entity"]
    assert again.meta["memgate/version"] == 3 and _hints(again)["openWorldHint"] is True


@pytest.mark.parametrize(
    "annotations, reason",
    [
        ({"readOnlyHint": True}, "access_policy.annotations.readOnlyHint is true, but this memory row can change data"),
        ({"readonly": True}, "access_policy.annotations has unknown keys ['readonly']"),
        ({"destructiveHint": "no"}, "access_policy.annotations.destructiveHint must be true or false"),
        (["readOnlyHint"], "access_policy.annotations must be an object"),
    ],
)
async def test_a_row_with_wrong_annotations_is_not_served_and_the_log_says_why(served, caplog, annotations, reason):
    app, manager, acme = served
    manager.put_tool(acme, _default("memory_write", annotations=annotations))
    caplog.set_level(logging.ERROR, logger="memgate.toolbox")
    async with Client(app) as c:
        tools = await _listed(c)
    assert "memory_write" not in tools and "lookup_entity" in tools
    assert any(reason in r.getMessage() for r in caplog.records), [r.getMessage() for r in caplog.records]
