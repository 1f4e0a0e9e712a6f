"""The dispatcher itself re-reads the toolbox row on every call, whatever the provider read before.

The provider's `_get_tool` and the dispatcher's run are two reads in one request; these tests
change the row between them through a second connection (as an operator's `memgate tools
disable` in another process would), so only the dispatcher's own check can refuse the call.
"""

from __future__ import annotations

import pytest
from backend_helpers import open_sqlite
from fastmcp.exceptions import ToolError
from mcp_helpers import log_rows

from memgate.manager import ACME, MemoryManager
from memgate.server.identity import stdio_resolver
from memgate.toolbox import ToolboxProvider

pytestmark = pytest.mark.anyio

GONE = "This tool is no longer available. List the tools again."
ARGS = {"subject": "model:helios-rag", "predicate": "beir_ndcg10"}


@pytest.fixture
def provider(manager, two_tenants):
    return ToolboxProvider(manager, stdio_resolver(ACME))


@pytest.fixture
def other_process(sqlite_path, two_tenants):
    """A second backend on the same file: the operator's CLI in another process."""
    b = open_sqlite(sqlite_path)
    yield MemoryManager(b)
    b.close()


def _disable(other):
    other.set_tool_enabled(ACME, "lookup_entity", False)


def _replace_by_next_version(other):
    other.set_tool_enabled(ACME, "lookup_entity", False)
    other.set_tool_enabled(ACME, "lookup_entity", True)


def _edit_in_place_to_the_next_version(other):
    # An operator's UPDATE that keeps the row's id but raises its version: only the version tells.
    [row] = other.active_tools(ACME, "lookup_entity")
    with other.backend.session(ACME) as s, s.transaction():
        s.raw("UPDATE toolbox_memory SET version = version + 1, usage_notes = 'edited' WHERE id = ?", (row["id"],))
    [now] = other.active_tools(ACME, "lookup_entity")
    assert (now["id"], now["version"]) == (row["id"], row["version"] + 1)


def _shadow_with_a_user_row_of_the_same_version(other):
    # A row scoped to jane wins over the tenant-wide one: another id, still version 1.
    [row] = other.active_tools(ACME, "lookup_entity")
    with other.backend.session(ACME) as s:
        s.insert("toolbox_memory", {**row, "id": "tool_jane_lookup", "user_id": "jane", "usage_notes": "jane's"})
    [now] = other.active_tools(ACME, "lookup_entity")
    assert (now["id"], now["version"]) == ("tool_jane_lookup", row["version"])


async def test_the_listed_tool_runs_when_nothing_changed(provider, backend):
    tool = await provider._get_tool("lookup_entity")
    result = await tool.run(ARGS)
    assert 'status="current" version="2"' in result.content[0].text
    assert [r["status"] for r in log_rows(backend)] == ["ok"]


@pytest.mark.parametrize(
    "change",
    [
        _disable,
        _replace_by_next_version,
        _edit_in_place_to_the_next_version,
        _shadow_with_a_user_row_of_the_same_version,
    ],
)
async def test_a_row_changed_after_the_provider_read_it_is_denied_by_the_dispatcher(
    provider, backend, other_process, change
):
    tool = await provider._get_tool("lookup_entity")
    listed = (tool.row.id, tool.row.version)
    change(other_process)
    with pytest.raises(ToolError, match=f"^{GONE}$"):
        await tool.run(ARGS)
    [row] = log_rows(backend)
    assert (row["tool_name"], row["status"], row["error_class"], row["result_text"]) == (
        "lookup_entity",
        "denied",
        "RowGone",
        GONE,
    )
    assert (row["toolbox_row_id"], row["toolbox_row_version"]) == listed
    assert row["rows_returned"] in (None, 0) and "0.78" not in (row["result_text"] or "")
