"""lookup_entity over MCP says "more exist" exactly when the row cap cut versions."""

from __future__ import annotations

import pytest
from fastmcp import Client

from memgate.server.app import stdio_server
from memgate.server.cli.common import open_manager
from memgate.server.settings import load_settings

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("max_rows, more, shown", [(1, "yes", 1), (2, "no", 2)])
async def test_more_exist_says_whether_the_row_cap_cut_the_versions(
    sqlite_path, two_tenants, mode, max_rows, more, shown
):
    settings = load_settings(
        None,
        **{
            "database.path": str(sqlite_path),
            "stdio.tenant": "acme",
            "stdio.user": "jane",
            "caps.max_rows": max_rows,
            "caps.default_rows": 1,
        },
    )
    manager = open_manager(settings)
    try:
        async with Client(stdio_server(manager, settings), mode=mode) as c:
            r = await c.call_tool("lookup_entity", {"subject": "model:helios-rag", "predicate": "beir_ndcg10"})
    finally:
        manager.close()
    text = r.content[0].text
    assert f"| versions shown: {shown} | more exist: {more} |" in text.splitlines()[0]
    assert text.count("<memory id=") == shown
