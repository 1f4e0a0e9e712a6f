"""A toolbox row's schema is checked once per row version, not on every list and every call."""

from __future__ import annotations

import json

import jsonschema
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from mcp_helpers import log_rows, stdio_app

from memgate.manager import ACME, RowRefused, ToolRow
from memgate.toolbox.rows import checked_row

pytestmark = pytest.mark.anyio

ARGS = {"subject": "model:helios-rag", "predicate": "beir_ndcg10"}


@pytest.fixture
def app(sqlite_path, two_tenants):
    mcp, manager = stdio_app(sqlite_path)
    yield mcp
    manager.close()


@pytest.fixture
def metaschema_checks(monkeypatch):
    """Every schema jsonschema checks against the metaschema, in order (the real check still runs)."""
    seen: list[dict] = []
    real = jsonschema.Draft202012Validator.check_schema.__func__

    def counting(cls, schema, *args, **kwargs):
        seen.append(schema)
        return real(cls, schema, *args, **kwargs)

    monkeypatch.setattr(jsonschema.Draft202012Validator, "check_schema", classmethod(counting))
    return seen


def _row(**changes) -> ToolRow:
    schema = {
        "type": "object",
        "properties": {"subject": {"type": "string", "description": "x"}},
        "required": ["subject"],
    }
    base = dict(
        id="tool_checked_once",
        version=7,
        tool_name="lookup_checked",
        tool_schema=schema,
        usage_notes="n",
        tool_handler="lookup_entity",
        access_policy={},
    )
    return ToolRow(**{**base, **changes})


def test_the_same_row_version_gives_the_same_checked_row():
    assert checked_row(_row()) is checked_row(_row())


def test_a_row_edited_in_place_under_the_same_version_is_checked_again():
    checked_row(_row())
    broken = _row(tool_schema={"type": "object", "properties": {"subject": {"type": 12}}, "required": ["subject"]})
    with pytest.raises(RowRefused, match="not valid JSON Schema"):
        checked_row(broken)


async def test_listing_and_calling_check_each_row_schema_once(app, metaschema_checks):
    async with Client(app) as c:
        await c.list_tools()
        await c.call_tool("lookup_entity", ARGS)
        first = len(metaschema_checks)
        for _ in range(3):
            await c.list_tools()
            await c.call_tool("lookup_entity", ARGS)
    assert len(metaschema_checks) == first


async def test_a_row_changed_in_the_database_under_the_same_version_is_refused_at_the_next_call(app, manager, backend):
    async with Client(app) as c:
        await c.call_tool("lookup_entity", ARGS)
        bad = {"type": "object", "properties": {"subject": {"type": "text"}}, "required": ["subject"]}
        with manager.backend.session(ACME) as s:
            s.raw(
                "UPDATE toolbox_memory SET tool_schema = :schema WHERE tool_name = 'lookup_entity'",
                {"schema": json.dumps(bad)},
            )
        assert "lookup_entity" not in [t.name for t in await c.list_tools()]
        with pytest.raises(ToolError, match="no longer available|no tool named"):
            await c.call_tool("lookup_entity", ARGS)
    assert [r["status"] for r in log_rows(backend, tool_name="lookup_entity")] == ["ok", "denied"]
