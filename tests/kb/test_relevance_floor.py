"""Search can say "nothing matched": calibrated relevance, and the tenant's relevance floor.

The demo tenants with the default embedder (WordLlama), over MCP through the real server in process.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from fastmcp import Client
from memory_helpers import server_for

from memgate.manager import ACME, GLOBEX, InvalidArgument
from memgate.manager.kb import relevance
from memgate.manager.kb.fusion import convex_fusion
from memgate.manager.limits import DEFAULT_RELEVANCE_FLOOR

OFF_TOPIC = ["quantum chromodynamics of emperor penguins", "best pizza dough hydration ratio"]
HELIOS = "What nDCG@10 did the Helios RAG evaluation find on BEIR?"
NOTHING = re.compile(r"results: 0 \(no passage reaches the relevance floor; closest: (0\.\d\d)\)")


def _search(manager, identity, queries):
    async def go():
        async with Client(server_for(manager, identity)) as client:
            return [await client.call_tool("search_memory", {"query": q}) for q in queries]

    return asyncio.run(go())


def test_off_topic_questions_get_nothing_and_the_metadata_line_says_how_close_the_best_came(manager, two_tenants):
    *off, helios = _search(manager, ACME, [*OFF_TOPIC, HELIOS])
    for result in off:
        head, body = result.content[0].text.split("\n", 1)
        closest = NOTHING.search(head)
        assert closest and 0 < float(closest.group(1)) < DEFAULT_RELEVANCE_FLOOR, head
        assert "ask the user" in body and "<memory" not in body
        assert result.structured_content in (None, {"results": []}) or result.structured_content["results"] == []
    text = helios.content[0].text
    assert text.startswith(f"search: {HELIOS} | results: ") and "chk_acme_1_0" in text
    scores = [float(s) for s in re.findall(r' score="([0-9.]+)"', text)]
    assert scores and all(DEFAULT_RELEVANCE_FLOOR <= s <= 1 for s in scores)


def test_the_floor_is_the_tenants_own(manager, two_tenants):
    manager.set_context_budget(ACME, {**manager.context_budget(ACME).to_json(), "relevance_floor": 0.0})
    [acme] = _search(manager, ACME, OFF_TOPIC[:1])
    [globex] = _search(manager, GLOBEX, OFF_TOPIC[:1])
    # with no floor the nearest passage comes back, with the low score that says what it is worth
    scores = [float(s) for s in re.findall(r' score="([0-9.]+)"', acme.content[0].text)]
    assert scores and max(scores) < DEFAULT_RELEVANCE_FLOOR
    assert globex.content[0].text.startswith(f"search: {OFF_TOPIC[0]} | results: 0")  # globex keeps the default


@pytest.mark.parametrize("bad", [1.5, -0.1, "0.3"])
def test_a_floor_outside_0_to_1_or_not_a_number_is_refused_naming_the_field(manager, two_tenants, bad):
    before = manager.context_budget(ACME)
    with pytest.raises(InvalidArgument, match="context_budget.relevance_floor"):
        manager.set_context_budget(ACME, {**before.to_json(), "relevance_floor": bad})
    assert manager.context_budget(ACME) == before


def test_a_lone_weak_leg_cannot_look_like_a_good_match():
    weak = {"vector": [(1, 0.02), (2, 0.01)]}
    # divided by its best alone, the weak leg's first passage is a full match
    assert convex_fusion(weak, {"vector": 1.0})[0].score == 1.0
    fused = relevance.fuse("best pizza dough hydration ratio", weak, {"vector": 1.0}, {}, "wordllama-l2_supercat-256")
    assert fused[0].id == 1 and fused[0].score < 0.1
    strong = relevance.fuse(
        "helios ndcg", {"lexical": [(1, 9.0)]}, {"lexical": 1.0}, {1: "Helios nDCG@10 was 0.78."}, "unknown-embedder"
    )
    assert strong[0].score > DEFAULT_RELEVANCE_FLOOR  # an embedder none was fitted for gets the default curves


def test_rare_words_weigh_more_than_common_ones():
    words = ["helios", "report"]
    assert relevance.coverage(words, "The Helios figures") > 0.5 > relevance.coverage(words, "The report")
    assert relevance.coverage(words, "helios reports") == 1.0  # a stem finds its longer forms
    assert relevance.coverage([], "anything") == 0.0


def test_above_floor_keeps_order_and_says_how_close_the_best_came():
    kept = relevance.above_floor([0.9, 0.2, 0.5], 0.3, float)
    assert (kept.kept, kept.below, kept.closest, kept.nothing) == ([0.9, 0.5], 1, None, False)
    none = relevance.above_floor([0.1, 0.25], 0.3, float)
    assert (none.kept, none.closest, none.nothing) == ([], 0.25, True)
    assert relevance.above_floor([], 0.3, float).nothing is False  # nothing ranked is not "below the floor"
