"""execute_query through a real in-process MCP client: the described tool, a table, refusals, the log."""

from __future__ import annotations

import random

import anyio
from fastmcp import Client
from mcp_helpers import log_rows, stdio_app
from query_helpers import CORPUS, MARKER, assert_no_leak, base_checksum

from memgate.manager.demo.dataset import GLOBEX


def _run(coro):
    return anyio.run(coro)


def test_the_tool_description_lists_the_views_and_columns(sqlite_path, two_tenants):
    app, _ = stdio_app(sqlite_path)

    async def main():
        async with Client(app) as client:
            return {t.name: t for t in await client.list_tools()}

    tool = _run(main)["execute_query"]
    assert tool.description.startswith("Read-only SQL to count, filter, group or compare many records.")
    assert "\n\nSQLite views of your rows current now; columns text unless typed.\n" in tool.description
    assert "\nentity_memory: subject, predicate," in tool.description
    assert "mcp_call_log" not in tool.description and "memory_file" not in tool.description
    assert "\nconversation_memory: event_type, role," in tool.description
    assert "memgate://query/functions" in tool.description
    assert tool.input_schema["required"] == ["query"]


def test_a_query_returns_a_table_and_writes_one_log_row(sqlite_path, two_tenants, backend):
    app, _ = stdio_app(sqlite_path)

    async def main():
        async with Client(app) as client:
            return await client.call_tool(
                "execute_query",
                {
                    "query": "SELECT predicate, content FROM entity_memory WHERE valid_until IS NULL ORDER BY predicate",
                    "max_rows": 1,
                },
            )

    result = _run(main)
    assert result.content[0].text.splitlines()[1:] == ["| predicate | content |", "|---|---|", "| beir_ndcg10 | 0.78 |"]
    assert result.content[0].text.startswith("rows: 1 | more exist: yes | row cap: 1 | tokens: ")
    [row] = log_rows(backend, tool_name="execute_query")
    assert (row["status"], row["rows_returned"], row["truncated"]) == ("ok", 1, 1)


def test_hostile_queries_through_the_client_are_refused_without_leaks(sqlite_path, two_tenants, backend):
    with backend.session(GLOBEX) as s:
        s.insert("entity_memory", {"id": f"ent_{MARKER}", "subject": MARKER, "predicate": "p", "content": MARKER})
    sample = random.Random(7).sample(CORPUS, 60)
    app, _ = stdio_app(sqlite_path)
    before = base_checksum(backend, skip=("base_mcp_call_log",))

    async def main():
        texts = []
        async with Client(app) as client:
            for sql in sample:
                result = await client.call_tool("execute_query", {"query": sql}, raise_on_error=False)
                texts.append((sql, result.is_error, result.content[0].text))
        return texts

    texts = _run(main)
    assert base_checksum(backend, skip=("base_mcp_call_log",)) == before
    for sql, is_error, text in texts:
        assert_no_leak(sql, text, error=is_error)
    assert len(log_rows(backend, tool_name="execute_query")) == len(sample)
    assert sum(is_error for _, is_error, _ in texts) > 20
