"""execute_query's arguments as the toolbox contract names them (`query`, `max_rows`), over MCP,
and the upgrade of rows an earlier memgate seeded with the argument named `sql`."""

from __future__ import annotations

import copy
import os

import pytest
from backend_helpers import table_digest
from click.testing import CliRunner
from fastmcp import Client
from mcp_helpers import stdio_app

from memgate.manager import ACME, GLOBEX, load_tool_definitions, seed_demo
from memgate.server.cli import cli

pytestmark = pytest.mark.anyio

#: the execute_query tool_schema memgate 0.1.0 seeded, byte for byte
OLD_SCHEMA = {
    "type": "object",
    "properties": {
        "sql": {
            "type": "string",
            "minLength": 1,
            "description": "One SELECT (or WITH ... SELECT) in SQLite syntax "
            "over the listed views. No semicolon, no bind placeholders: write values as literals.",
        },
        "max_rows": {
            "type": "integer",
            "minimum": 1,
            "description": "Rows to return (default 25; the server caps it, 500 by default).",
        },
    },
    "required": ["sql"],
    "additionalProperties": False,
}
QUERY = "SELECT id FROM entity_memory WHERE id = 'ent_acme_helios_v2'"


def _old_definitions(schema=OLD_SCHEMA):
    definitions = copy.deepcopy(load_tool_definitions())
    for d in definitions:
        if d["tool_name"] == "execute_query":
            d["tool_schema"] = copy.deepcopy(schema)
    return definitions


@pytest.fixture
def old_database(manager):
    seed_demo(manager)
    for identity in (ACME, GLOBEX):
        manager.seed_tools(identity, _old_definitions())
    return manager


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_tool_takes_query_and_an_optional_bounded_max_rows(sqlite_path, two_tenants, mode):
    app, _ = stdio_app(sqlite_path)
    async with Client(app, mode=mode) as c:
        [tool] = [t for t in await c.list_tools() if t.name == "execute_query"]
        result = await c.call_tool("execute_query", {"query": QUERY})
    schema = tool.input_schema
    assert (schema["required"], sorted(schema["properties"])) == (["query"], ["as_of", "max_rows", "query"])
    # the bounds are the handler model's (and the description says the cap), not menu tokens
    assert schema["properties"]["max_rows"] == {"type": "integer"} and "max_rows up to 500" in tool.description
    assert result.content[0].text.startswith("rows: 1 | more exist: no | row cap: 25 |")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"query": QUERY, "max_rows": 0},
            "Invalid arguments for 'max_rows': Input should be greater than or equal to 1",
        ),
        (
            {"query": QUERY, "max_rows": 5001},
            "Invalid arguments for 'max_rows': Input should be less than or equal to 5000",
        ),
        ({"query": QUERY, "max_rows": "5"}, "Invalid arguments for 'max_rows': '5' is not of type 'integer'"),
        ({"query": QUERY, "max_rows": 2.5}, "Invalid arguments for 'max_rows': 2.5 is not of type 'integer'"),
        (
            {"sql": QUERY},
            "Invalid arguments: Additional properties are not allowed ('sql' was unexpected) (did you mean 'query'?)",
        ),
        (
            {"query": QUERY, "max_row": 3},
            "Invalid arguments: Additional properties are not allowed ('max_row' was unexpected) "
            "(did you mean 'max_rows'?)",
        ),
        (  # two names the tool does not take: no one of them is meant, so no guess
            {"sql": QUERY, "limit": 3},
            "Invalid arguments: Additional properties are not allowed ('limit', 'sql' were unexpected)",
        ),
        (  # nothing close and nothing required missing: no guess
            {"query": QUERY, "tenant": "globex"},
            "Invalid arguments: Additional properties are not allowed ('tenant' was unexpected)",
        ),
    ],
)
async def test_invalid_arguments_get_the_plain_wording(sqlite_path, two_tenants, arguments, message):
    app, _ = stdio_app(sqlite_path)
    async with Client(app) as c:
        result = await c.call_tool("execute_query", arguments, raise_on_error=False)
    assert (result.is_error, result.content[0].text) == (True, message)


async def test_max_rows_above_the_configured_cap_is_trimmed_and_the_first_line_says_the_cap(sqlite_path, two_tenants):
    app, _ = stdio_app(sqlite_path)
    async with Client(app) as c:
        result = await c.call_tool("execute_query", {"query": QUERY, "max_rows": 5000})
    assert result.content[0].text.startswith("rows: 1 | more exist: no | row cap: 500 |")


async def test_a_row_still_naming_sql_is_not_served_and_doctor_says_how_to_upgrade(
    sqlite_path, old_database, monkeypatch
):
    app, _ = stdio_app(sqlite_path)
    async with Client(app) as c:
        names = [t.name for t in await c.list_tools()]
    assert "execute_query" not in names and "lookup_entity" in names
    monkeypatch.delenv("MEMGATE_SERVER__TRANSPORT", raising=False)
    doctor = CliRunner().invoke(cli, ["--db", str(sqlite_path), "doctor"]).output
    served = len(names)  # every default tool but execute_query
    assert (
        f"[FAIL] tools of acme: {served} served; refused: execute_query (tool_schema names the argument 'sql', which "
        "the execute_query handler now calls 'query'. Run memgate init --tenant with the row's tenant to "
        "upgrade a default row that was never edited, or rename the property in the row's tool_schema)"
    ) in doctor


async def test_init_upgrades_a_default_row_never_edited_to_the_query_schema(
    sqlite_path, old_database, backend, monkeypatch
):
    for key in list(os.environ):
        if key.startswith("MEMGATE_"):
            monkeypatch.delenv(key)
    out = CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme"]).output
    assert "tools for acme: execute_query upgraded to the current default tool_schema\n" in out
    again = table_digest(backend)
    assert "upgraded" not in CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme"]).output
    assert table_digest(backend) == again
    app, _ = stdio_app(sqlite_path)
    async with Client(app) as c:
        [tool] = [t for t in await c.list_tools() if t.name == "execute_query"]
        result = await c.call_tool("execute_query", {"query": QUERY})
    assert tool.input_schema["required"] == ["query"] and tool.meta["memgate/version"] == 2
    assert result.content[0].text.startswith("rows: 1 |")
    globex, _ = stdio_app(sqlite_path, tenant="globex", user="omar", agent="support-bot")
    async with Client(globex) as c:
        assert "execute_query" not in [t.name for t in await c.list_tools()]  # only the tenant asked for


async def test_init_leaves_an_edited_row_alone(sqlite_path, manager, backend):
    edited = copy.deepcopy(OLD_SCHEMA)
    edited["properties"]["sql"]["description"] = "Our own words."
    manager.seed_tools(ACME, _old_definitions(edited))
    before = table_digest(backend)
    out = CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme"]).output
    assert "upgraded" not in out and table_digest(backend) == before
