"""The call log keeps the text the model saw, clipped to caps.result_log_chars (its documented cap).

The model gets the whole result; the mcp_call_log row keeps its first result_log_chars
characters, so one large result cannot grow the log without bound.
"""

from __future__ import annotations

import pytest
from fastmcp import Client
from mcp_helpers import log_rows, stdio_app

pytestmark = pytest.mark.anyio

CAP = 120


async def test_result_text_in_the_call_log_is_clipped_to_the_cap(sqlite_path, backend, two_tenants):
    app, manager = stdio_app(sqlite_path, **{"caps.result_log_chars": CAP})
    async with Client(app) as c:
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag"})
    manager.close()
    seen = r.content[0].text
    assert len(seen) > CAP  # the model got all of it
    [row] = log_rows(backend)
    assert row["status"] == "ok" and row["result_text"] == seen[:CAP]


async def test_a_result_under_the_cap_is_logged_whole(sqlite_path, backend, two_tenants):
    app, manager = stdio_app(sqlite_path)
    async with Client(app) as c:
        r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag"})
    manager.close()
    [row] = log_rows(backend)
    assert row["result_text"] == r.content[0].text
