"""A value the caller sent is repeated whole only when it is short: over MCP, a megabyte old_str or
tool name comes back (and goes to the log) clipped, with its length."""

from __future__ import annotations

import logging

import pytest
from backend_helpers import table_digest
from fastmcp import Client
from mcp_helpers import log_rows, stdio_app

pytestmark = pytest.mark.anyio

PATH = "/memories/notes.md"


async def _call(app, *calls):
    async with Client(app) as client:
        await client.call_tool("memory_write", {"command": "create", "path": PATH, "file_text": "a b a\nc\n"})
        return [await client.call_tool(name, args, raise_on_error=False) for name, args in calls]


async def test_a_ten_megabyte_old_str_is_echoed_clipped(sqlite_path, two_tenants, backend):
    app, manager = stdio_app(sqlite_path)
    big = "y" * 10_485_760
    [result] = await _call(
        app, ("memory_write", {"command": "str_replace", "path": PATH, "old_str": big, "new_str": "z"})
    )
    manager.close()
    assert result.is_error
    assert result.content[0].text == (
        f"No replacement was performed, old_str `{'y' * 300}…(10,485,760 characters)` "
        f"did not appear verbatim in {PATH}."
    )
    logged = log_rows(backend, tool_name="memory_write")[-1]
    assert logged["result_text"] == result.content[0].text


async def test_a_repeated_long_old_str_is_echoed_clipped_and_a_short_one_whole(sqlite_path, two_tenants):
    app, manager = stdio_app(sqlite_path)
    long = "w" * 400
    results = await _call(
        app,
        ("memory_write", {"command": "create", "path": "/memories/long.md", "file_text": f"{long}\n{long}\n"}),
        ("memory_write", {"command": "str_replace", "path": "/memories/long.md", "old_str": long, "new_str": "z"}),
        ("memory_write", {"command": "str_replace", "path": PATH, "old_str": "a", "new_str": "z"}),
        ("memory_write", {"command": "str_replace", "path": PATH, "old_str": "x" * 300, "new_str": "z"}),
    )
    manager.close()
    texts = [r.content[0].text for r in results[1:]]
    assert texts == [
        f"No replacement was performed. Multiple occurrences of old_str `{'w' * 300}…(400 characters)` in lines: "
        "1, 2. Please ensure it is unique",
        "No replacement was performed. Multiple occurrences of old_str `a` in lines: 1, 1. Please ensure it is unique",
        f"No replacement was performed, old_str `{'x' * 300}` did not appear verbatim in {PATH}.",
    ]


async def test_a_megabyte_tool_name_is_denied_and_logged_clipped(sqlite_path, two_tenants, backend, caplog):
    app, manager = stdio_app(sqlite_path)
    before = table_digest(backend, skip=("mcp_call_log",))
    caplog.set_level(logging.DEBUG)
    async with Client(app) as client:
        result = await client.call_tool("n" * 1_000_000, {"x": 1}, raise_on_error=False)
    manager.close()
    # never a tool here, so "no tool named", with the name as the middleware clipped it
    assert result.is_error and result.content[0].text == f"There is no tool named {'n' * 98}…(1,000,000 characters)."
    [row] = log_rows(backend)
    assert (row["status"], row["tool_name"]) == ("denied", "n" * 98 + "…(1,000,000 characters)")
    assert max(len(r.getMessage()) for r in caplog.records) < 2_000
    assert table_digest(backend, skip=("mcp_call_log",)) == before
