"""A schema error repeats at most 60 characters of the offending argument, then its length.

jsonschema's message quotes the whole instance; the dispatcher clips that quote, so a long
argument of the wrong type neither floods the model's context nor the call log's row.
"""

from __future__ import annotations

import pytest
from fastmcp import Client
from mcp_helpers import log_rows, stdio_app

pytestmark = pytest.mark.anyio

LONG = "z" * 1_000


async def test_a_long_argument_of_the_wrong_type_is_echoed_60_characters_at_most(sqlite_path, backend, two_tenants):
    app, manager = stdio_app(sqlite_path)
    async with Client(app) as c:
        r = await c.call_tool(
            "lookup_entity", {"subject": "model:helios-rag", "include_history": LONG}, raise_on_error=False
        )
    manager.close()
    text = r.content[0].text
    assert r.is_error
    assert text == f"Invalid arguments for 'include_history': '{'z' * 59}…(1,002 characters) is not of type 'boolean'"
    assert "z" * 60 not in text
    [row] = log_rows(backend)
    assert (row["status"], row["result_text"]) == ("invalid", text)


async def test_a_short_argument_of_the_wrong_type_is_echoed_whole(sqlite_path, two_tenants):
    app, manager = stdio_app(sqlite_path)
    async with Client(app) as c:
        r = await c.call_tool(
            "lookup_entity", {"subject": "model:helios-rag", "include_history": "yes"}, raise_on_error=False
        )
    manager.close()
    assert r.content[0].text == "Invalid arguments for 'include_history': 'yes' is not of type 'boolean'"
