"""Over MCP, a second user of the same tenant and agent sees none of jane's user-scoped rows, through any tool.

The real FastMCP server in-process, in both protocol eras: every tool the caller is listed
(the defaults: lookup_entity, search_memory, execute_query over every reviewed and history
view, memory view, expand and clarify; a user-scoped memory tool; ChatGPT's search and fetch,
fetch asked for jane's own chunk and document ids; the example report). jane still sees her
rows through the same calls, so the check cannot pass by showing nobody anything.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from backend_helpers import operator_rows
from fastmcp import Client
from kb_helpers import add_doc, hashing_manager
from memory_helpers import READ_ONLY_ROW, server_for

from memgate.manager import ACME, Identity, load_tool_definitions
from memgate.server.cli.tools_cmds import report_definition

JANE = ACME
BOB = Identity(tenant="acme", user="bob", agent="research-assistant", principal="test:bob")
MARK = "quokkaberry"  # in every row of jane's the fixture adds
JULY_SUMMARY = ("sum_acme_july", "ahead of the baseline")  # the demo's user-scoped summary: its id and text
USER_MEMORY = {
    **READ_ONLY_ROW,
    "tool_name": "user_memory",
    "usage_notes": "Your own notes.",
    "access_policy": {"memory_store": {"scope": "user"}},
}
CONFIG = Path(__file__).resolve().parents[2] / "config"
#: the README's example report: every entity_memory version changed since a date, with its status
REPORT = report_definition(
    "claims_changed_since",
    CONFIG / "reports" / "claims_changed_since.sql",
    CONFIG / "reports" / "claims_changed_since.json",
    None,
    None,
)


@pytest.fixture
def kb(backend, two_tenants):
    manager = hashing_manager(backend)
    manager.seed_tools(JANE, [USER_MEMORY, *load_tool_definitions(CONFIG / "toolbox.chatgpt.json"), REPORT])
    # no relevance floor: the wall alone decides what bob's searches may show
    manager.set_context_budget(JANE, {**manager.context_budget(JANE).to_json(), "relevance_floor": 0.0})
    add_doc(
        manager,
        JANE,
        f"Jane's {MARK} plans",
        f"The {MARK} launch is jane's private plan for the July summary.",
        user_id="jane",
    )
    with backend.session(JANE) as s, s.transaction():
        s.insert(
            "entity_memory",
            {
                "id": "ent_jane_note",
                "tenant_id": "acme",
                "user_id": "jane",
                "subject": "model:helios-rag",
                "predicate": "jane_note",
                "content": MARK,
            },
        )
        s.insert(
            "conversation_memory",
            {"id": "cnv_jane", "tenant_id": "acme", "user_id": "jane", "event_type": "turn", "content": f"{MARK} turn"},
        )
        s.insert(
            "guideline_memory",
            {
                "id": "gdl_jane",
                "tenant_id": "acme",
                "user_id": "jane",
                "guideline_key": "citations",
                "content": f"{MARK} citation rule",
            },
        )
        s.insert(
            "memory_store",
            {"id": "mst_jane", "tenant_id": "acme", "user_id": "jane", "store_key": "user:jane", "scope": "user"},
        )
        s.insert(
            "memory_file",
            {
                "id": "mf_jane",
                "tenant_id": "acme",
                "store_id": "mst_jane",
                "path": f"/memories/{MARK}.md",
                "content": f"{MARK} notes",
                "size_chars": 17,
                "size_bytes": 17,
            },
        )
    return manager


def _janes_kb_ids(backend) -> tuple[str, str]:
    """The id of jane's own document and of its (one) chunk."""
    [doc] = operator_rows(backend, "knowledge_base_document", "WHERE user_id = 'jane'")
    [chunk] = operator_rows(backend, "knowledge_base_chunk", "WHERE document_id = :d", {"d": doc["id"]})
    return doc["id"], chunk["id"]


def _every_tool_call(manager, identity, mode) -> tuple[dict, dict[str, str]]:
    """List the tools, then call every one as `identity`: the tools, and each call's text by a short label."""
    doc_id, chunk_id = _janes_kb_ids(manager.backend)

    async def main():
        async with Client(server_for(manager, identity), mode=mode) as client:
            tools = {t.name: t for t in await client.list_tools()}
            sql_arg = tools["execute_query"].input_schema["required"][0]
            calls = {
                "lookup": ("lookup_entity", {"subject": "model:helios-rag"}),
                "search": ("search_memory", {"query": f"{MARK} July summary baseline plans"}),
                "memory": ("memory", {"command": "view", "path": "/memories"}),
                "memory_write": ("memory_write", {"command": "delete", "path": "/memories/nothing-here.md"}),
                "user_memory": ("user_memory", {"command": "view", "path": "/memories"}),
                "user_memory file": ("user_memory", {"command": "view", "path": f"/memories/{MARK}.md"}),
                "expand": ("expand", {"memory_id": chunk_id}),
                "expand absent": ("expand", {"memory_id": "chk_no_such_passage"}),
                "clarify": ("clarify", {"question": "Which launch plan do you mean?"}),
                "chatgpt search": ("search", {"query": f"{MARK} July summary baseline plans"}),
                "fetch chunk": ("fetch", {"id": chunk_id}),
                "fetch document": ("fetch", {"id": doc_id}),
                "fetch absent": ("fetch", {"id": "chk_no_such_passage"}),
                "report": ("claims_changed_since", {"since": "2000-01-01"}),
                "remember": ("remember", {"content": "Plans were reviewed.", "evidence": [chunk_id]}),
                "remember absent": (
                    "remember",
                    {"content": "Plans were reviewed.", "evidence": ["chk_no_such_passage"]},
                ),
            }
            calls.update(
                {
                    view: ("execute_query", {sql_arg: f"SELECT * FROM {view}", "max_rows": 500})
                    for view in manager.backend.query_catalog()
                }
            )
            assert {name for name, _ in calls.values()} == set(tools), "every tool listed is called"
            texts = {}
            for label, (name, arguments) in calls.items():
                result = await client.call_tool(name, arguments, raise_on_error=False)
                texts[label] = result.content[0].text
            return tools, texts

    return asyncio.run(main())


def _cells(table: str, column: str) -> list[str]:
    """One column of an execute_query markdown table (its first line is the metadata line)."""
    lines = table.splitlines()
    if lines[1:] == ["(no rows)"]:
        return []
    header = [c.strip() for c in lines[1].strip("|").split("|")]
    at = header.index(column)
    return [[c.strip() for c in line.strip("|").split("|")][at] for line in lines[3:]]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_second_acme_user_sees_none_of_janes_rows_through_any_tool(kb, mode):
    tools, texts = _every_tool_call(kb, BOB, mode)
    assert {
        "lookup_entity",
        "search_memory",
        "execute_query",
        "memory",
        "user_memory",
        "expand",
        "clarify",
        "search",
        "fetch",
        "claims_changed_since",
    } <= set(tools)
    views = set(kb.backend.query_catalog())
    assert {"summarization_memory", "conversation_memory", "entity_memory_history", "knowledge_base_chunk"} <= views
    assert (
        set(texts)
        == {
            "lookup",
            "search",
            "memory",
            "memory_write",
            "user_memory",
            "user_memory file",
            "expand",
            "clarify",
            "chatgpt search",
            "fetch chunk",
            "fetch document",
            "fetch absent",
            "expand absent",
            "report",
            "remember",
            "remember absent",
        }
        | views
    )
    assert texts.pop("user_memory file") == f"The path /memories/{MARK}.md does not exist. Please provide a valid path."
    # jane's ids are refused with the very sentence an id that exists nowhere gets
    assert texts["fetch chunk"] == texts["fetch document"] == texts.pop("fetch absent")
    assert texts["expand"] == texts.pop("expand absent")
    # resting a memory on jane's chunk is refused as resting it on nothing is
    _, chunk_id = _janes_kb_ids(kb.backend)
    assert texts["remember"].replace(chunk_id, "ID") == texts.pop("remember absent").replace(
        "chk_no_such_passage", "ID"
    )
    assert texts["remember"].startswith("refused | rule: evidence\n")
    assert json.loads(texts["chatgpt search"])["results"]  # bob finds the tenant's shared chunks
    texts["search"] = texts["search"].split("\n", 1)[1]  # its first line echoes the query
    assert '<memory id="chk_' in texts["search"]  # bob finds the tenant's chunks, not jane's
    for label, text in texts.items():
        assert MARK not in text, (label, text)
        assert not any(word in text for word in JULY_SUMMARY), (label, text)
        if label in views:
            assert set(_cells(text, "user_id")) <= {"", "bob"}, (label, text)

    _, jane = _every_tool_call(kb, JANE, mode)
    for label in (
        "lookup",
        "search",
        "user_memory",
        "user_memory file",
        "entity_memory",
        "entity_memory_history",
        "conversation_memory",
        "guideline_memory",
        "knowledge_base_chunk",
        "knowledge_base_document",
        "chatgpt search",
        "fetch chunk",
        "fetch document",
        "report",
    ):
        assert MARK in jane[label], (label, jane[label])
    assert all(word in jane["summarization_memory"] for word in JULY_SUMMARY)
    assert "jane" in _cells(jane["summarization_memory"], "user_id")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stale_versions_are_not_current_rows_and_history_says_which_is_which(kb, mode):

    async def main():
        async with Client(server_for(kb, JANE), mode=mode) as client:
            tools = {t.name: t for t in await client.list_tools()}
            arg = tools["execute_query"].input_schema["required"][0]
            where = "WHERE subject = 'model:helios-rag' AND predicate = 'beir_ndcg10' ORDER BY version"
            current = await client.call_tool("execute_query", {arg: f"SELECT content FROM entity_memory {where}"})
            history = await client.call_tool(
                "execute_query", {arg: f"SELECT content, version, status FROM entity_memory_history {where}"}
            )
            return tools["execute_query"].description, current.content[0].text, history.content[0].text

    description, current, history = asyncio.run(main())
    assert current.splitlines()[1:] == ["| content |", "|---|", "| 0.78 |"]
    assert history.splitlines()[1:] == [
        "| content | version | status |",
        "|---|---|---|",
        "| 0.92 | 1 | superseded |",
        "| 0.78 | 2 | current |",
    ]
    assert "your rows current now" in description and "_history views of entity," in description


def test_a_user_scoped_tool_row_is_listed_for_that_user_first_and_never_for_another(kb, backend):
    lookup = next(t for t in load_tool_definitions() if t["tool_name"] == "lookup_entity")
    with backend.session(JANE) as s:
        s.insert(
            "toolbox_memory",
            {
                "id": "tool_jane_lookup",
                "tenant_id": "acme",
                "user_id": "jane",
                "tool_name": "lookup_entity",
                "tool_schema": json.dumps(lookup["tool_schema"]),
                "usage_notes": f"{MARK}: jane's own lookup.",
                "tool_handler": "lookup_entity",
                "valid_from": "2026-01-01T00:00:00.000Z",
            },
        )

    async def description(identity):
        async with Client(server_for(kb, identity)) as client:
            return {t.name: t for t in await client.list_tools()}["lookup_entity"].description

    assert asyncio.run(description(JANE)).startswith(f"{MARK}: jane's own lookup.")
    assert MARK not in asyncio.run(description(BOB))
    assert kb.guidelines(JANE)["citations"]["id"] == "gdl_jane"  # most specific first
    assert kb.guidelines(BOB)["citations"]["id"] == "gdl_acme_citations"
