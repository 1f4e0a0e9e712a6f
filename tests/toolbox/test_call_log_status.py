"""Every outcome of a tool call over MCP writes exactly one mcp_call_log row with its status."""

from __future__ import annotations

import pytest
from fastmcp import Client
from mcp_helpers import log_rows

from memgate.server.app import stdio_server
from memgate.server.cli.common import open_manager
from memgate.server.settings import load_settings

pytestmark = pytest.mark.anyio

RUNAWAY = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"


def _break_entity_view(backend):
    # A real failure inside the handler: the view it reads calls a function that does not exist.
    with backend.unwalled_connection() as conn:
        conn.execute("DROP VIEW entity_memory")
        conn.execute(
            "CREATE VIEW entity_memory AS SELECT *, missing_fn(id) AS boom"
            " FROM base_entity_memory WHERE tenant_id = app_tenant()"
        )


ADMIN_ONLY = {
    "tool_name": "admin_lookup",
    "tool_handler": "lookup_entity",
    "usage_notes": "x",
    "access_policy": {"required_scopes": ["memory:admin"]},
    "tool_schema": {"type": "object", "properties": {"subject": {"type": "string"}}, "required": ["subject"]},
}
CALLS = {  # case: (tool, arguments or the query for execute_query, status, error_class)
    "ok": ("lookup_entity", {"subject": "model:helios-rag"}, "ok", None),
    "denied-no-row": ("no_such_tool", {}, "denied", "UnknownTool"),
    "denied-by-policy": ("admin_lookup", {"subject": "model:helios-rag"}, "denied", "AccessDenied"),
    "invalid": ("lookup_entity", {"subject": 1}, "invalid", "InvalidArgument"),
    "error": ("lookup_entity", {"subject": "model:helios-rag"}, "error", "BackendUnavailable"),
    "timeout": ("execute_query", RUNAWAY, "timeout", "QueryTimeout"),
}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("case", sorted(CALLS))
async def test_each_outcome_writes_one_log_row_with_its_status(sqlite_path, backend, two_tenants, case, mode):
    settings = load_settings(
        None,
        **{
            "database.path": str(sqlite_path),
            "stdio.tenant": "acme",
            "stdio.user": "jane",
            "caps.query_timeout_s": 0.2,
        },
    )
    manager = open_manager(settings)
    tool, arguments, status, error_class = CALLS[case]
    if case == "error":
        _break_entity_view(backend)
    manager.seed_tools(two_tenants[0], [ADMIN_ONLY])
    try:
        async with Client(stdio_server(manager, settings), mode=mode) as c:
            if isinstance(arguments, str):  # execute_query: the schema names its one required argument
                listed = {t.name: t for t in await c.list_tools()}[tool]
                arguments = {listed.input_schema["required"][0]: arguments}
            result = await c.call_tool(tool, arguments, raise_on_error=False)
    finally:
        manager.close()
    [row] = log_rows(backend)
    assert (row["tool_name"], row["status"], row["error_class"]) == (tool, status, error_class)
    assert row["result_text"] == result.content[0].text and result.is_error == (status != "ok")
