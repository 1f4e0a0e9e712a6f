"""Every advertised inputSchema fits Gemini's function-calling subset; calls are still validated strictly."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from fastmcp import Client
from mcp_helpers import log_rows, stdio_app

from memgate.manager import ACME, RowRefused, ToolRow, load_tool_definitions
from memgate.toolbox import check_row, tool_from_row
from memgate.toolbox.portable_schema import portable, subset_problems

ROOT = Path(__file__).resolve().parents[2]
#: config/toolbox.json (the defaults) and every preset beside it (config/toolbox.<host>.json)
PRESETS = sorted((ROOT / "config").glob("toolbox*.json"))


def _row(definition: dict, **overrides) -> ToolRow:
    d = {**definition, **overrides}
    return ToolRow(
        id="tool_test",
        version=1,
        tool_name=d["tool_name"],
        tool_schema=d["tool_schema"],
        usage_notes=d["usage_notes"],
        tool_handler=d["tool_handler"],
        access_policy=d.get("access_policy", {}),
    )


def test_the_presets_include_the_defaults():
    assert ROOT / "config" / "toolbox.json" in PRESETS


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.name)
def test_every_preset_row_is_advertised_in_the_gemini_subset(preset):
    definitions = load_tool_definitions(preset)
    assert definitions
    for d in definitions:
        tool = tool_from_row(_row(d), call=None)
        assert subset_problems(tool.parameters) == [], d["tool_name"]


#: the example report rows beside the presets (config/reports/<name>.sql with its <name>.json)
REPORTS = sorted((ROOT / "config" / "reports").glob("*.json"))


@pytest.mark.parametrize("schema", REPORTS, ids=lambda p: p.name)
def test_every_example_report_row_is_advertised_in_the_gemini_subset(schema):
    from memgate.server.cli.tools_cmds import report_definition

    definition = report_definition(schema.stem, schema.with_suffix(".sql"), schema, None, None)
    tool = tool_from_row(_row(definition), call=None)
    assert subset_problems(tool.parameters) == [], schema.name


def test_a_memory_row_shaped_by_its_policy_stays_in_the_subset():
    memory = next(d for d in load_tool_definitions() if d["tool_handler"] == "memory")
    tool = tool_from_row(
        _row(memory, access_policy={"allowed_commands": ["view"], "memory_store": {"scope": "agent"}}), call=None
    )
    assert tool.parameters["properties"]["command"]["enum"] == ["view"]
    assert subset_problems(tool.parameters) == []


@pytest.fixture
def app(sqlite_path, two_tenants):
    mcp, manager = stdio_app(sqlite_path)
    yield mcp
    manager.close()


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_every_schema_on_the_wire_is_in_the_subset(app, mode):
    async with Client(app, mode=mode) as c:
        tools = await c.list_tools()
    assert {t.name for t in tools} >= {d["tool_name"] for d in load_tool_definitions()}
    for t in tools:
        assert subset_problems(t.input_schema) == [], t.name


@pytest.mark.anyio
async def test_unknown_arguments_are_still_refused_though_the_schema_does_not_say_so(app, backend):
    async with Client(app) as c:
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "colour": "blue"}, raise_on_error=False)
    assert r.is_error
    [row] = log_rows(backend)
    assert (row["tool_name"], row["status"]) == ("lookup_entity", "invalid")


@pytest.mark.parametrize(
    "schema, problem",
    [
        (
            {"type": "object", "$defs": {"S": {"type": "string"}}, "properties": {"subject": {"$ref": "#/$defs/S"}}},
            "uses '$defs'",
        ),
        (
            {"type": "object", "properties": {"subject": {"anyOf": [{"type": "string"}, {"type": "null"}]}}},
            "anyOf[1] is null",
        ),
        ({"type": "object", "properties": {"subject": {"type": ["string", "null"]}}}, "has type ['string', 'null']"),
        ({"type": "object", "properties": {"subject": {"type": "array"}}}, "array without one items schema"),
        (
            {
                "type": "object",
                "properties": {"subject": {"type": "object", "additionalProperties": {"type": "string"}}},
            },
            "uses 'additionalProperties'",
        ),
        ({"type": "object", "properties": {"subject": {"type": "string", "const": "x"}}}, "uses 'const'"),
        ({"type": "object", "properties": {"subject": {"type": "integer", "enum": [1, 2]}}}, "enum must list strings"),
        ({"type": "object", "properties": {"subject": {"type": "string", "format": "uri"}}}, "format 'uri'"),
    ],
)
def test_the_subset_check_names_what_gemini_refuses(schema, problem):
    problems = subset_problems(portable(schema))
    assert any(problem in p for p in problems), problems


def test_portable_drops_only_boolean_additional_properties():
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "a": {
                "type": "array",
                "items": {"type": "object", "additionalProperties": True, "properties": {"b": {"type": "string"}}},
            }
        },
    }
    assert portable(schema) == {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string"}}}}},
    }
    assert schema["additionalProperties"] is False  # the stored schema is not touched


def test_a_row_whose_schema_gemini_would_refuse_is_not_served(sqlite_path, two_tenants, manager, caplog):
    lookup = next(d for d in load_tool_definitions() if d["tool_name"] == "lookup_entity")
    bad = dict(
        lookup,
        tool_name="lookup_with_refs",
        tool_schema={
            "type": "object",
            "$defs": {"S": {"type": "string"}},
            "properties": {"subject": {"$ref": "#/$defs/S"}},
            "required": ["subject"],
        },
    )
    with pytest.raises(RowRefused, match="Gemini's function calling refuses: inputSchema uses '\\$defs'"):
        check_row(_row(bad))
    manager.seed_tools(ACME, [bad])
    mcp, served = stdio_app(sqlite_path)

    async def names():
        async with Client(mcp) as c:
            return {t.name for t in await c.list_tools()}

    import asyncio

    with caplog.at_level(logging.ERROR, logger="memgate.toolbox"):
        listed = asyncio.run(names())
    served.close()
    assert "lookup_entity" in listed and "lookup_with_refs" not in listed
    assert any("lookup_with_refs" in m and "Gemini" in m for m in caplog.messages)
