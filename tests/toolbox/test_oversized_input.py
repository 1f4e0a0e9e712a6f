"""Oversized input to every default tool gets a clear error, and nothing in the database changes."""

from __future__ import annotations

import pytest
from backend_helpers import table_digest
from fastmcp import Client
from mcp_helpers import log_rows, stdio_app

pytestmark = pytest.mark.anyio

MEGABYTE = "x" * 1_000_000


def _fingerprint(backend) -> str:
    """A digest of every table except the call log (which must grow by one row per call)."""
    return table_digest(backend, skip=("mcp_call_log",))


@pytest.mark.parametrize(
    "tool, arguments, starts",
    [
        ("lookup_entity", {"subject": MEGABYTE}, "Invalid arguments for 'subject': "),
        ("search_memory", {"query": MEGABYTE}, "Invalid arguments for 'query': "),
        (
            "execute_query",
            {"query": "SELECT id FROM entity_memory WHERE content = '" + MEGABYTE + "'"},
            "The query was rejected: query refused (rule length): it is 1000047 characters long and the limit is 32000.",
        ),
        (
            "memory_write",
            {"command": "create", "path": "/memories/big.md", "file_text": MEGABYTE},
            "File /memories/big.md",
        ),
        ("memory_write", {"command": "create", "path": "/memories/" + "a" * 5000 + ".md", "file_text": "x"}, "Path "),
    ],
)
async def test_oversized_arguments_are_refused_clearly_and_change_nothing(
    sqlite_path, two_tenants, backend, tool, arguments, starts
):
    app, manager = stdio_app(sqlite_path)
    before = _fingerprint(backend)
    async with Client(app) as c:
        r = await c.call_tool(tool, arguments, raise_on_error=False)
    manager.close()
    text = r.content[0].text
    assert r.is_error
    assert text.startswith(starts), text[:300]
    assert len(text) < 2_000  # the refusal never echoes the megabyte back
    assert _fingerprint(backend) == before
    [row] = log_rows(backend)
    assert row["status"] == "invalid"
    assert len(row["arguments_json"]) <= 4000
