"""Report tools: one reviewed SELECT with named binds, admitted when its row is written.

The statement obeys execute_query's admission (a write, a second statement, a view off
the list are refused when the row is written, naming the rule, and nothing is written);
a call validates the binds strictly against the row's schema (naming the field), binds
them through the driver, and runs behind the same read-only wall with the same caps,
cell shaping, table and call log as execute_query.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from backend_helpers import table_digest
from click.testing import CliRunner
from fastmcp import Client
from mcp_helpers import log_rows, stdio_app

from memgate.manager import ACME, GLOBEX, InvalidArgument, QueryRejected
from memgate.manager.ids import new_id
from memgate.server.cli import cli

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SQL = ROOT / "config" / "reports" / "claims_changed_since.sql"
EXAMPLE_SCHEMA = ROOT / "config" / "reports" / "claims_changed_since.json"
SINCE = {"since": "2000-01-01"}


@pytest.fixture(autouse=True)
def _no_memgate_env(monkeypatch):
    for key in [k for k in os.environ if k.startswith("MEMGATE_")]:
        monkeypatch.delenv(key)


def report(name: str, sql: str, properties: dict | None = None, required: list[str] | None = None, **policy) -> dict:
    props = {"since": {"type": "string"}} if properties is None else properties
    return {
        "tool_name": name,
        "tool_handler": "report",
        "usage_notes": f"The {name} report.",
        "tool_schema": {
            "type": "object",
            "properties": props,
            "required": sorted(props) if required is None else required,
            "additionalProperties": False,
        },
        "access_policy": {"report": {"sql": sql, **policy}},
    }


def _add_example(sqlite_path, tenant="acme", *extra):
    return CliRunner().invoke(
        cli,
        [
            "--db",
            str(sqlite_path),
            "tools",
            "add-report",
            "claims_changed_since",
            "-t",
            tenant,
            "--sql",
            str(EXAMPLE_SQL),
            "--schema",
            str(EXAMPLE_SCHEMA),
            *extra,
        ],
    )


async def test_the_example_report_is_added_listed_read_only_and_answers_like_execute_query(
    sqlite_path, two_tenants, backend
):
    added = _add_example(sqlite_path)
    assert (added.exit_code, added.output) == (0, "claims_changed_since (report) added for acme (version 1)\n")
    app, manager = stdio_app(sqlite_path)
    async with Client(app) as c:
        tool = {t.name: t for t in await c.list_tools()}["claims_changed_since"]
        result = await c.call_tool("claims_changed_since", SINCE)
        same = await c.call_tool("execute_query", {"query": EXAMPLE_SQL.read_text().replace(":since", "'2000-01-01'")})
    manager.close()
    assert tool.description == json.loads(EXAMPLE_SCHEMA.read_text())["description"]
    assert tool.input_schema["required"] == ["since"] and "description" not in tool.input_schema
    assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
    text = result.content[0].text
    assert text == same.content[0].text  # one code path: the same caps, shaping and table
    assert text.startswith("rows: ") and "| row cap: 25 |" in text.splitlines()[0]
    assert "ent_acme_helios_v1" in text and "| superseded |" in text and "ent_globex" not in text
    report_row, query_row = log_rows(backend)
    assert (report_row["tool_name"], report_row["handler"], report_row["status"]) == (
        "claims_changed_since",
        "report",
        "ok",
    )
    assert json.loads(report_row["arguments_json"]) == SINCE
    assert report_row["rows_returned"] == query_row["rows_returned"] > 1
    assert report_row["result_text"] == query_row["result_text"] == text


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"since": 20000101}, "Invalid arguments for 'since': 20000101 is not of type 'string'"),
        (
            {"since": "yesterday"},
            "Invalid arguments for 'since': 'yesterday' does not match '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'",
        ),
        ({}, "Invalid arguments for 'since': 'since' is a required property"),
        (
            {"since": "2000-01-01", "tenant": "globex"},
            "Invalid arguments: Additional properties are not allowed ('tenant' was unexpected)",
        ),
    ],
)
async def test_a_wrong_bind_is_refused_naming_the_field_and_logged_invalid(
    sqlite_path, two_tenants, backend, arguments, message
):
    _add_example(sqlite_path)
    app, manager = stdio_app(sqlite_path)
    async with Client(app) as c:
        r = await c.call_tool("claims_changed_since", arguments, raise_on_error=False)
    manager.close()
    assert (r.is_error, r.content[0].text) == (True, message)
    [row] = log_rows(backend)
    assert (row["status"], row["handler"], row["error_class"]) == ("invalid", "report", "InvalidArgument")


@pytest.mark.parametrize(
    "sql, rule",
    [
        ("DELETE FROM entity_memory WHERE valid_from < :since", "select-only"),
        ("SELECT id FROM entity_memory WHERE valid_from >= :since; DELETE FROM entity_memory", "one-statement"),
        (
            "WITH x AS (DELETE FROM entity_memory RETURNING id) SELECT * FROM x WHERE :since IS NOT NULL",
            "nested-statement",
        ),
        ("SELECT * FROM mcp_call_log WHERE called_at >= :since", "table"),
        ("SELECT * FROM main.entity_memory WHERE valid_from >= :since", "schema"),
        ("SELECT load_extension(:since) FROM entity_memory", "function"),
        ("SELECT id FROM entity_memory WHERE valid_from >= ?", "named-binds"),
        ("SELECT id FROM entity_memory WHERE valid_from >= @since", "named-binds"),
    ],
)
def test_a_report_that_breaks_a_rule_is_refused_when_written_naming_the_rule(manager, two_tenants, backend, sql, rule):
    before = table_digest(backend)
    with pytest.raises(QueryRejected, match=rf"^report 'bad': query refused \(rule {rule}\)") as refused:
        manager.seed_tools(ACME, [report("bad", sql)])
    assert refused.value.rule == rule
    with pytest.raises(QueryRejected, match=rf"\(rule {rule}\)"):
        manager.put_tool(ACME, report("bad", sql))
    assert table_digest(backend) == before


def test_init_refuses_a_tools_file_whose_report_writes_and_seeds_nothing(sqlite_path, tmp_path, manager, backend):
    tools = tmp_path / "toolbox.json"
    tools.write_text(json.dumps({"tools": [report("purge", "DELETE FROM entity_memory WHERE valid_from < :since")]}))
    manager.migrate()
    before = table_digest(backend)
    out = CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme", "--tools-file", str(tools)])
    assert out.exit_code == 1
    assert "Error: report 'purge': query refused (rule select-only): only a SELECT statement is accepted." in out.output
    assert table_digest(backend) == before


def test_add_report_refuses_a_write_naming_the_rule_and_writes_nothing(sqlite_path, two_tenants, tmp_path, backend):
    bad = tmp_path / "bad.sql"
    bad.write_text("UPDATE entity_memory SET content = 'x' WHERE valid_from >= :since")
    before = table_digest(backend)
    out = CliRunner().invoke(
        cli,
        [
            "--db",
            str(sqlite_path),
            "tools",
            "add-report",
            "bad",
            "-t",
            "acme",
            "--sql",
            str(bad),
            "--schema",
            str(EXAMPLE_SCHEMA),
        ],
    )
    assert out.exit_code == 1 and "(rule select-only)" in out.output
    assert table_digest(backend) == before


@pytest.mark.parametrize(
    "sql, properties, message",
    [
        (
            "SELECT id FROM entity_memory WHERE subject = :subject",
            None,
            "the SQL binds :subject, which tool_schema does not declare; tool_schema declares since, which the SQL "
            "never binds",
        ),
        ("SELECT id FROM entity_memory", None, "tool_schema declares since, which the SQL never binds"),
    ],
)
def test_binds_and_schema_properties_must_match(manager, two_tenants, sql, properties, message):
    with pytest.raises(InvalidArgument, match=rf"^report 'bad': {message}$") as refused:
        manager.put_tool(ACME, report("bad", sql, properties))
    assert refused.value.field == "tool_schema"


@pytest.mark.parametrize(
    "properties, reason",
    [
        (
            {"since": {"type": "array", "items": {"type": "string"}}},
            "tool_schema.properties.since: a report bind has one type",
        ),
        (
            {"since": {"type": "string", "format": "date-time"}},
            "format 'date-time' would not be checked; use a pattern",
        ),
    ],
)
def test_add_report_refuses_a_bind_schema_the_toolbox_would_not_serve(
    sqlite_path, two_tenants, tmp_path, backend, properties, reason
):
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"description": "d", "type": "object", "properties": properties}))
    before = table_digest(backend)
    out = CliRunner().invoke(
        cli,
        [
            "--db",
            str(sqlite_path),
            "tools",
            "add-report",
            "r",
            "-t",
            "acme",
            "--sql",
            str(EXAMPLE_SQL),
            "--schema",
            str(schema),
        ],
    )
    assert out.exit_code == 1 and "report 'r' cannot be served: " in out.output and reason in out.output
    assert table_digest(backend) == before


async def test_bind_values_are_bound_not_spliced(manager, sqlite_path, two_tenants, backend):
    manager.put_tool(
        ACME,
        report(
            "by_subject",
            "SELECT id, content FROM entity_memory WHERE subject = :subject",
            {"subject": {"type": "string"}},
        ),
    )
    before = table_digest(backend, skip=("mcp_call_log",))
    app, served = stdio_app(sqlite_path)
    async with Client(app) as c:
        hit = await c.call_tool("by_subject", {"subject": "model:helios-rag"})
        injected = await c.call_tool("by_subject", {"subject": "x' OR '1'='1"})
        dropped = await c.call_tool("by_subject", {"subject": "x'; DELETE FROM entity_memory; --"})
    served.close()
    assert hit.content[0].text.startswith("rows: 2 |") and "ent_acme_helios_v2" in hit.content[0].text
    assert injected.content[0].text.startswith("rows: 0 |") and dropped.content[0].text.startswith("rows: 0 |")
    assert table_digest(backend, skip=("mcp_call_log",)) == before


async def test_optional_binds_take_their_default_or_null_and_the_row_cap_holds(manager, sqlite_path, two_tenants):
    manager.put_tool(
        ACME,
        report(
            "facts",
            "SELECT id FROM entity_memory_history WHERE (:subject IS NULL OR subject = :subject) "
            "AND status = :status ORDER BY id",
            {"subject": {"type": "string"}, "status": {"type": "string", "default": "current"}},
            required=[],
            max_rows=1,
        ),
    )
    app, served = stdio_app(sqlite_path)
    async with Client(app) as c:
        every = await c.call_tool("facts", {})
        superseded = await c.call_tool("facts", {"subject": "model:helios-rag", "status": "superseded"})
    served.close()
    assert every.content[0].text.startswith("rows: 1 | more exist: yes | row cap: 1 |")
    assert superseded.content[0].text.startswith("rows: 1 | more exist: no |")
    assert "ent_acme_helios_v1" in superseded.content[0].text


async def test_each_tenant_runs_its_report_on_its_own_rows_only(sqlite_path, two_tenants):
    for tenant in ("acme", "globex"):
        assert _add_example(sqlite_path, tenant).exit_code == 0
    texts = {}
    for tenant, user, agent in (("acme", "jane", "research-assistant"), ("globex", "omar", "support-bot")):
        app, served = stdio_app(sqlite_path, tenant=tenant, user=user, agent=agent)
        async with Client(app) as c:
            texts[tenant] = (await c.call_tool("claims_changed_since", SINCE)).content[0].text
        served.close()
    assert "ent_acme" in texts["acme"] and "ent_globex" not in texts["acme"]
    assert "ent_globex" in texts["globex"] and "ent_acme" not in texts["globex"]


async def test_a_report_row_written_past_admission_still_meets_the_read_only_wall(
    sqlite_path, two_tenants, backend, manager
):
    # Written straight into the table, as a careless operator might: never admitted.
    definition = report("sneaky", "DELETE FROM entity_memory WHERE valid_from >= :since")
    with backend.session(ACME) as s:
        s.insert(
            "toolbox_memory",
            {
                "id": new_id("tool"),
                "tenant_id": "acme",
                "tool_name": "sneaky",
                "tool_handler": "report",
                "tool_schema": json.dumps(definition["tool_schema"]),
                "usage_notes": "x",
                "access_policy": json.dumps(definition["access_policy"]),
                "version": 1,
                "valid_from": "2000-01-01T00:00:00.000000Z",
                "created_at": "2000-01-01T00:00:00.000000Z",
            },
        )
    before = table_digest(backend, skip=("mcp_call_log",))
    app, served = stdio_app(sqlite_path)
    async with Client(app) as c:
        r = await c.call_tool("sneaky", SINCE, raise_on_error=False)
    served.close()
    assert (r.is_error, r.content[0].text) == (
        True,
        "The query was rejected: query refused (rule invalid): the database could not run it as written.",
    )
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    [row] = log_rows(backend)
    assert (row["tool_name"], row["handler"], row["status"]) == ("sneaky", "report", "invalid")


def test_a_second_add_report_is_the_next_version(sqlite_path, two_tenants):
    assert _add_example(sqlite_path).exit_code == 0
    again = _add_example(sqlite_path, "acme", "--notes", "What changed since a date.", "--max-rows", "10")
    assert again.output == "claims_changed_since (report) added for acme (version 2)\n"
    rows = CliRunner().invoke(cli, ["--db", str(sqlite_path), "tools", "list", "-t", "acme", "--all-versions"]).output
    assert "claims_changed_since report                2  enabled" in rows
    assert "claims_changed_since report                1  disabled" in rows


def test_a_report_row_with_no_statement_is_refused(manager, two_tenants):
    definition = report("empty", "x")
    definition["access_policy"] = {}
    with pytest.raises(InvalidArgument, match=r"report 'empty' has no statement"):
        manager.put_tool(GLOBEX, definition)
