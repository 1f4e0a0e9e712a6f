"""Values no tool may take are refused before any schema or handler sees them: a lone UTF-16
surrogate anywhere in the arguments, or nesting deeper than the limit. One sentence naming the
argument, an `invalid` log row, nothing run."""

from __future__ import annotations

import pytest
from backend_helpers import table_digest
from fastmcp import Client
from mcp_helpers import log_rows, stdio_app

from memgate.toolbox.argument_values import DEEP, MAX_DEPTH, SURROGATE

pytestmark = pytest.mark.anyio


def _nested(depth: int):
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("arguments", "field", "reason"),
    [
        ({"subject": "model:\ud800helios"}, "subject", SURROGATE),
        ({"subject": "model:helios-rag", "include_history": _nested(MAX_DEPTH + 5)}, "include_history", DEEP),
    ],
    ids=["surrogate", "deep"],
)
async def test_a_value_no_tool_may_take_is_refused_before_the_schema(
    sqlite_path, backend, two_tenants, arguments, field, reason
):
    app, manager = stdio_app(sqlite_path)
    before = table_digest(backend, skip=("mcp_call_log",))
    async with Client(app) as c:
        r = await c.call_tool("lookup_entity", arguments, raise_on_error=False)
    manager.close()
    assert r.is_error and r.content[0].text == f"Invalid arguments for '{field}': {reason}"
    [row] = log_rows(backend)
    assert (row["status"], row["error_class"]) == ("invalid", "InvalidArgument")
    assert table_digest(backend, skip=("mcp_call_log",)) == before
