"""Structured output only where a row asks for it (access_policy.structured_output).

A row that enables it advertises the handler's outputSchema and answers with
structuredContent (ids, versions, statuses, scores) beside the same compact text; every
other row, the defaults included, advertises none and sends none. The Python client checks
structuredContent against the outputSchema and raises on a mismatch, so every call here
through it is that check.
"""

from __future__ import annotations

import copy
import logging

import pytest
from fastmcp import Client
from mcp_helpers import log_rows, stdio_app

from memgate.manager import load_tool_definitions

pytestmark = pytest.mark.anyio

LOOKUP = {"subject": "model:helios-rag", "predicate": "beir_ndcg10"}
SEARCH = {"query": "helios nDCG@10 re-run"}
NO_HITS = {"query": "helios", "collection": "no-such-collection"}


@pytest.fixture
def served(sqlite_path, two_tenants):
    app, manager = stdio_app(sqlite_path)
    yield app, manager, two_tenants[0]
    manager.close()


def _structured(name: str, on=True) -> dict:
    d = copy.deepcopy(next(t for t in load_tool_definitions() if t["tool_name"] == name))
    d["access_policy"] = {**d.get("access_policy", {}), "structured_output": on}
    return d


async def _texts_and_results(app, mode):
    async with Client(app, mode=mode) as c:
        tools = {t.name: t for t in await c.list_tools()}
        results = [
            await c.call_tool("lookup_entity", LOOKUP),
            await c.call_tool("search_memory", SEARCH),
            await c.call_tool("search_memory", NO_HITS),
        ]
    return tools, results


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_default_rows_advertise_no_output_schema_and_send_no_structured_content(served, mode):
    app, _, _ = served
    tools, results = await _texts_and_results(app, mode)
    assert [name for name, t in tools.items() if t.output_schema is not None] == []
    assert [r.structured_content for r in results] == [None, None, None]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_rows_that_enable_it_get_an_output_schema_and_structured_content_beside_the_same_text(served, mode):
    app, manager, acme = served
    _, plain = await _texts_and_results(app, mode)
    manager.put_tool(acme, _structured("lookup_entity"))
    manager.put_tool(acme, _structured("search_memory"))
    tools, results = await _texts_and_results(app, mode)
    lookup, search, none_found = results
    assert tools["lookup_entity"].output_schema["required"] == ["claims"]
    assert tools["search_memory"].output_schema["required"] == ["results"]
    assert tools["execute_query"].output_schema is None  # only the rows that asked
    # the text is the compact rendering either way
    assert [r.content[0].text for r in results] == [r.content[0].text for r in plain]
    claims = lookup.structured_content["claims"]
    assert [(c["id"], c["version"], c["status"]) for c in claims] == [
        ("ent_acme_helios_v2", 2, "current"),
        ("ent_acme_helios_v1", 1, "superseded"),
    ]
    assert all(c["id"] in lookup.content[0].text for c in claims)
    hits = search.structured_content["results"]
    assert hits and all(isinstance(h["score"], float) and h["id"] in search.content[0].text for h in hits)
    assert hits == sorted(hits, key=lambda h: -h["score"])
    assert none_found.structured_content == {"results": []}


async def test_structured_output_on_a_handler_without_one_leaves_the_row_out_and_says_why(served, caplog):
    app, manager, acme = served
    manager.put_tool(acme, _structured("execute_query"))
    caplog.set_level(logging.ERROR, logger="memgate.toolbox")
    async with Client(app) as c:
        names = [t.name for t in await c.list_tools()]
    assert "execute_query" not in names and "lookup_entity" in names
    assert any("the execute_query handler has no structured output" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("value", ["yes", 1, None])
async def test_structured_output_must_be_true_or_false(served, caplog, value):
    app, manager, acme = served
    manager.put_tool(acme, _structured("lookup_entity", on=value))
    caplog.set_level(logging.ERROR, logger="memgate.toolbox")
    async with Client(app) as c:
        assert "lookup_entity" not in [t.name for t in await c.list_tools()]
    assert any("access_policy.structured_output must be true or false" in r.getMessage() for r in caplog.records)


async def test_an_error_result_carries_no_structured_content_and_is_logged_as_before(served, backend):
    app, manager, acme = served
    manager.put_tool(acme, _structured("lookup_entity"))
    async with Client(app) as c:
        r = await c.call_tool("lookup_entity", {"subject": 7}, raise_on_error=False)
    assert r.is_error and r.structured_content is None
    assert r.content[0].text == "Invalid arguments for 'subject': 7 is not of type 'string'"
    [row] = log_rows(backend)
    assert (row["tool_name"], row["status"], row["toolbox_row_version"]) == ("lookup_entity", "invalid", 2)
