"""Links over MCP: num_hops on lookup_entity and search_memory, and the link_memory tool behind the wall."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from backend_helpers import operator_rows, table_digest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from image_helpers import image_bytes
from mcp_helpers import stdio_app

from memgate.manager import ACME, Identity, load_tool_definitions

pytestmark = pytest.mark.anyio

HELIOS = {"subject": "model:helios-rag", "predicate": "beir_ndcg10"}
PRESET = Path(__file__).resolve().parents[2] / "config" / "toolbox.links.json"


def _records(result) -> list[dict]:
    """Each `<memory ...>` record's attributes, in the order the text shows them."""
    heads = re.findall(r"<memory ([^>]*)>", result.content[0].text)
    return [dict(re.findall(r'(\w+)="([^"]*)"', head)) for head in heads]


def _linked(result, parent: str) -> list[dict]:
    return [r for r in _records(result) if r.get("linked_to") == parent]


async def _call(sqlite_path, tool, args, **who):
    app, manager = stdio_app(sqlite_path, **who)
    try:
        async with Client(app) as c:
            return await c.call_tool(tool, args)
    finally:
        manager.close()


def _forge_link(backend, tenant, from_, to, link_type="supports"):
    """A shared link row of `tenant` written straight through the wall, past every check the link writer
    makes (what a bug in manager code could leave behind)."""
    with backend.session(Identity(tenant=tenant)) as s:
        s.insert(
            "memory_link",
            {
                "id": f"lnk_forged_{from_[1]}_{to[1]}",
                "tenant_id": tenant,
                "from_type": from_[0],
                "from_id": from_[1],
                "link_type": link_type,
                "to_type": to[0],
                "to_id": to[1],
            },
        )


async def test_num_hops_0_returns_only_the_direct_matches(sqlite_path, two_tenants):
    lookup = await _call(sqlite_path, "lookup_entity", {**HELIOS, "num_hops": 0})
    search = await _call(sqlite_path, "search_memory", {"query": "August re-run nDCG", "num_hops": 0})
    for result in (lookup, search):
        assert "linked_to=" not in result.content[0].text and "linked:" not in result.content[0].text
    assert [r["id"] for r in _records(lookup)] == ["ent_acme_helios_v2", "ent_acme_helios_v1"]
    assert {r["type"] for r in _records(search)} == {"kb_chunk"}


async def test_num_hops_1_shows_version_1_as_history_linked_to_version_2(sqlite_path, two_tenants):
    result = await _call(sqlite_path, "lookup_entity", {**HELIOS, "num_hops": 1, "include_history": False})
    text = result.content[0].text
    assert [r["id"] for r in _records(result) if "linked_to" not in r] == ["ent_acme_helios_v2"]
    linked = {r["id"]: r for r in _linked(result, "ent_acme_helios_v2")}
    assert linked["ent_acme_helios_v1"] == {
        "id": "ent_acme_helios_v1",
        "type": "entity",
        "status": "historical",
        "linked_to": "ent_acme_helios_v2",
        "relation": "is_superseded_by",
        "direction": "out",
        "hop": "1",
    }
    assert (
        '<memory id="ent_acme_helios_v1" type="entity" status="historical" linked_to="ent_acme_helios_v2" '
        'relation="is_superseded_by" direction="out" hop="1">\n'
        "<content>model:helios-rag beir_ndcg10 = 0.92</content>"
    ) in text
    assert text.index('id="ent_acme_helios_v2"') < text.index('id="ent_acme_helios_v1"')
    assert linked["chk_acme_1_0"]["relation"] == "supports"  # the report's passage supports version 2


def test_include_invalid_results_is_lookup_entitys_history_switch(manager, two_tenants):
    shown = manager.lookup_entity(ACME, **HELIOS, include_history=False, include_invalid_results=True)
    hidden = manager.lookup_entity(ACME, **HELIOS, include_history=True, include_invalid_results=False)
    assert (shown.rows, hidden.rows) == (2, 1)


async def test_search_memory_hops_label_each_chunks_links_and_keep_the_ranking(sqlite_path, two_tenants):
    plain = await _call(sqlite_path, "search_memory", {"query": "August re-run nDCG"})
    hopped = await _call(sqlite_path, "search_memory", {"query": "August re-run nDCG", "num_hops": 1})
    direct = [r["id"] for r in _records(hopped) if "linked_to" not in r]
    assert direct == [r["id"] for r in _records(plain)] and direct[0] == "chk_acme_1_0"
    assert {(r["id"], r["relation"]) for r in _linked(hopped, "chk_acme_1_0")} == {
        ("ent_acme_helios_v2", "is_supported_by"),
        ("sum_acme_july", "is_contradicted_by"),
    }


async def test_two_hops_reach_the_far_side_and_max_linked_results_bounds_them(sqlite_path, two_tenants):
    two = await _call(sqlite_path, "lookup_entity", {**HELIOS, "num_hops": 2, "include_history": False})
    assert {
        "id": "sum_acme_july",
        "type": "summary",
        "status": "current",
        "linked_to": "chk_acme_1_0",
        "relation": "is_contradicted_by",
        "direction": "out",
        "hop": "2",
    } in _records(two)
    one = await _call(
        sqlite_path, "lookup_entity", {**HELIOS, "num_hops": 2, "include_history": False, "max_linked_results": 1}
    )
    assert [r["id"] for r in _records(one) if "linked_to" in r] == ["ent_acme_helios_v1"]
    assert "more exist: yes" in one.content[0].text.splitlines()[0]


async def test_num_hops_above_2_is_refused_naming_the_field(sqlite_path, two_tenants):
    with pytest.raises(ToolError, match="num_hops"):
        await _call(sqlite_path, "lookup_entity", {**HELIOS, "num_hops": 3})


async def test_a_link_to_another_users_memory_is_never_returned(sqlite_path, backend, two_tenants):
    # the demo's contradicts link is jane's (the summary is); bob sees the passage, not the summary or the link
    bob = await _call(sqlite_path, "search_memory", {"query": "August re-run nDCG", "num_hops": 2}, user="bob")
    assert "sum_acme_july" not in bob.content[0].text
    # a shared link row pointing at jane's summary (a bug's leftover) still shows bob nothing of it
    _forge_link(backend, "acme", ("knowledge_base_chunk", "chk_acme_1_1"), ("summarization_memory", "sum_acme_july"))
    bob = await _call(sqlite_path, "search_memory", {"query": "Recall@100 retriever", "num_hops": 2}, user="bob")
    assert "sum_acme_july" not in bob.content[0].text and "July evaluation" not in bob.content[0].text
    jane = await _call(sqlite_path, "search_memory", {"query": "Recall@100 retriever", "num_hops": 1})
    assert 'id="sum_acme_july"' in jane.content[0].text


async def test_a_link_to_another_tenants_memory_is_never_returned(sqlite_path, backend, two_tenants):
    _forge_link(backend, "acme", ("entity_memory", "ent_acme_helios_v2"), ("entity_memory", "ent_globex_helios_v1"))
    _forge_link(backend, "globex", ("entity_memory", "ent_globex_helios_v1"), ("entity_memory", "ent_acme_helios_v2"))
    result = await _call(sqlite_path, "lookup_entity", {**HELIOS, "num_hops": 2})
    assert "globex" not in result.content[0].text and "0.55" not in result.content[0].text


async def test_a_cycle_of_links_ends_and_shows_each_memory_once(sqlite_path, manager, two_tenants):
    ring = ["chk_acme_1_0", "chk_acme_1_1", "chk_acme_2_0"]
    for a, b in zip(ring, ring[1:] + ring[:1]):
        manager.add_link(ACME, a, "refines", b)
    result = await _call(
        sqlite_path, "search_memory", {"query": "August re-run nDCG", "num_hops": 2, "max_linked_results": 20}
    )
    records = _records(result)
    assert any(r.get("relation") == "is_refined_by" for r in records)
    for direct in [r["id"] for r in records if "linked_to" not in r]:
        reached = []
        for r in records[records.index(next(x for x in records if x["id"] == direct)) + 1 :]:
            if "linked_to" not in r:
                break
            reached.append(r["id"])
        assert len(reached) == len(set(reached)) and direct not in reached, (direct, reached)


async def test_link_memory_writes_a_link_between_two_visible_memories(sqlite_path, manager, two_tenants):
    manager.seed_tools(ACME, load_tool_definitions(PRESET))
    result = await _call(
        sqlite_path, "link_memory", {"from_id": "chk_acme_1_1", "link_type": "supports", "to_id": "ent_acme_helios_v2"}
    )
    assert result.content[0].text.splitlines()[1] == "chk_acme_1_1 supports ent_acme_helios_v2"
    assert "| new: yes |" in result.content[0].text
    again = await _call(
        sqlite_path, "link_memory", {"from_id": "chk_acme_1_1", "link_type": "supports", "to_id": "ent_acme_helios_v2"}
    )
    assert "| new: no (already linked) |" in again.content[0].text
    assert [v.relation for v in manager.memory_links(ACME, "chk_acme_1_1")] == ["supports"]


async def test_link_memory_says_it_writes(sqlite_path, manager, two_tenants):
    manager.seed_tools(ACME, load_tool_definitions(PRESET))
    app, served = stdio_app(sqlite_path)
    try:
        async with Client(app) as c:
            tool = next(t for t in await c.list_tools() if t.name == "link_memory")
    finally:
        served.close()
    assert (tool.annotations.read_only_hint, tool.annotations.destructive_hint) == (False, False)


async def test_link_memory_is_not_a_default_tool(sqlite_path, two_tenants):
    app, served = stdio_app(sqlite_path)
    try:
        async with Client(app) as c:
            assert "link_memory" not in {t.name for t in await c.list_tools()}
    finally:
        served.close()


@pytest.mark.parametrize(
    "who, to_id",
    [
        ({}, "ent_globex_helios_v1"),  # another tenant's claim
        ({"user": "bob"}, "sum_acme_july"),  # jane's summary, for bob
        ({}, "ent_does_not_exist"),
    ],
)
async def test_a_link_to_a_memory_the_caller_cannot_see_is_refused_and_nothing_is_written(
    sqlite_path, manager, backend, two_tenants, who, to_id
):
    manager.seed_tools(ACME, load_tool_definitions(PRESET))
    before = table_digest(backend, skip=("mcp_call_log",))
    with pytest.raises(ToolError, match="^Invalid arguments for 'to_id'") as refused:
        await _call(
            sqlite_path, "link_memory", {"from_id": "chk_acme_1_1", "link_type": "contradicts", "to_id": to_id}, **who
        )
    assert str(refused.value) == (
        f"Invalid arguments for 'to_id': to_id {to_id!r} is no memory you can see; link ids your results showed"
    )
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    assert [r["status"] for r in operator_rows(backend, "mcp_call_log", "WHERE tool_name = 'link_memory'")] == [
        "invalid"
    ]


async def test_include_invalid_results_lets_an_ended_chunk_be_a_direct_result_labelled_historical(
    sqlite_path, backend, two_tenants
):
    with backend.session(Identity(tenant="acme")) as s:
        s.raw(
            "UPDATE knowledge_base_chunk SET valid_until = :t WHERE id = 'chk_acme_1_1'",
            {"t": "2026-09-01T00:00:00.000Z"},
        )
        s.raw(
            "UPDATE knowledge_base_chunk SET deleted_at = :t WHERE id = 'chk_acme_2_0'",
            {"t": "2026-09-01T00:00:00.000Z"},
        )
    query = {"query": "Recall@100 retriever metric fact store"}
    current = {r["id"]: r["status"] for r in _records(await _call(sqlite_path, "search_memory", query))}
    ended = {
        r["id"]: r["status"]
        for r in _records(await _call(sqlite_path, "search_memory", {**query, "include_invalid_results": True}))
    }
    assert "chk_acme_1_1" not in current and ended["chk_acme_1_1"] == "historical"
    assert "chk_acme_2_0" not in current and "chk_acme_2_0" not in ended  # deleted: never


async def test_a_short_budget_cuts_linked_results_before_any_direct_result(sqlite_path, manager, two_tenants):
    args = {"query": "August re-run nDCG", "max_results": 1}
    full = await _call(sqlite_path, "search_memory", {**args, "num_hops": 1})
    direct_only = await _call(sqlite_path, "search_memory", args)
    assert len(_linked(full, "chk_acme_1_0")) == 2
    # room for the direct result (and the longer metadata line), not for both linked records
    tokens = int(re.search(r"tokens: (\d+)", direct_only.content[0].text).group(1))
    manager.set_context_budget(ACME, {**manager.context_budget(ACME).to_json(), "max_tool_result_tokens": tokens + 40})
    short = await _call(sqlite_path, "search_memory", {**args, "num_hops": 1})
    assert [r["id"] for r in _records(short) if "linked_to" not in r] == ["chk_acme_1_0"]
    assert len(_linked(short, "chk_acme_1_0")) < 2
    assert "more exist: yes" in short.content[0].text.splitlines()[0]
    assert int(re.search(r"tokens: (\d+)", short.content[0].text).group(1)) <= tokens + 40


async def test_an_image_linked_to_a_claim_shows_as_its_description_never_its_bytes(
    sqlite_path, manager, two_tenants, tmp_path
):
    chart = tmp_path / "ndcg.png"
    chart.write_bytes(image_bytes())
    image_id = manager.ingest_file(ACME, chart, description="Helios nDCG@10 by month").image_id
    manager.add_link(ACME, image_id, "supports", "ent_acme_helios_v2")
    result = await _call(sqlite_path, "lookup_entity", {**HELIOS, "num_hops": 1, "include_history": False})
    [image] = [r for r in _records(result) if r["id"] == image_id]
    assert (image["type"], image["relation"], image["direction"]) == ("image", "supports", "in")
    record = result.content[0].text.split(f'<memory id="{image_id}"')[1].split("</memory>")[0]
    assert "<content>ndcg.png\nHelios nDCG@10 by month</content>" in record
    assert len(result.content) == 1 and result.content[0].type == "text"
