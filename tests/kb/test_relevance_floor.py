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
from memgate.manager.backend.base import TermStats
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
        assert closest and 0 <= float(closest.group(1)) < DEFAULT_RELEVANCE_FLOOR, head
        assert "ask the user" in body and "<memory" not in body
        assert result.structured_content in (None, {"results": []}) or result.structured_content["results"] == []
    text = helios.content[0].text
    assert text.startswith(f"search: {HELIOS} | results: ") and "chk_acme_1_0" in text
    scores = [float(s) for s in re.findall(r' score="([0-9.]+)"', text)]
    # the first passage reaches the floor, so the search is answered; the rest follow by rank
    assert scores and DEFAULT_RELEVANCE_FLOOR <= scores[0] <= 1 and scores == sorted(scores, reverse=True)


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


def test_a_large_index_weighs_words_by_its_own_counts_and_a_tiny_one_by_english():
    words = ["helios", "report"]  # English: helios rare, report common; this index: the other way round
    english = relevance.word_weights(words)
    assert english["helios"] > english["report"]
    large = relevance.word_weights(words, TermStats(chunks=100_000, holding={"helios": 90_000, "report": 3}))
    assert large["report"] > large["helios"] and abs(sum(large.values()) - 1) < 1e-9
    tiny = relevance.word_weights(words, TermStats(chunks=3, holding={"helios": 3, "report": 0}))
    assert abs(tiny["helios"] - english["helios"]) < 0.02  # three chunks say little about rarity


def test_present_is_the_share_of_the_query_the_index_holds_at_all():
    stats = TermStats(chunks=2_000, holding={"penguins": 0, "huddle": 0, "winter": 40})
    e = relevance.evidence("penguins huddle in winter", {"lexical": [(1, 3.0)]}, {1: "A cold winter."}, stats)
    weights = relevance.word_weights(["penguins", "huddle", "winter"], stats)
    assert (e.words, e.cosine) == (3, None)
    assert e.present == pytest.approx(weights["winter"]) and e.coverage == pytest.approx(weights["winter"])
    unindexed = relevance.evidence("penguins huddle in winter", {"vector": [(1, 0.3)]}, {}, None)
    assert (unindexed.cosine, unindexed.coverage, unindexed.present) == (0.3, None, None)


def test_the_first_passage_scores_the_querys_relevance_and_the_rest_follow_by_fused_rank():
    scored = {"lexical": [(1, 8.0), (2, 4.0)], "vector": [(2, 0.6), (3, 0.3)]}
    weights = {"lexical": 0.5, "vector": 0.5}
    texts = {1: "Helios nDCG@10 on BEIR was 0.78.", 2: "Helios evaluation."}
    fused = relevance.fuse("helios ndcg beir", scored, weights, texts, "wordllama-l2_supercat-256")
    plain = convex_fusion(scored, weights)
    e = relevance.evidence("helios ndcg beir", scored, texts)
    r = relevance.calibration_for("wordllama-l2_supercat-256").relevance(e)
    assert [f.id for f in fused] == [f.id for f in plain]
    assert fused[0].score == pytest.approx(r)
    assert [f.score for f in fused] == pytest.approx([r * f.score / plain[0].score for f in plain])


def test_answered_keeps_the_whole_list_or_nothing_by_its_best():
    kept = relevance.answered([0.2, 0.9, 0.1], 0.5, float)
    assert (kept.kept, kept.below, kept.closest, kept.nothing) == ([0.2, 0.9, 0.1], 0, None, False)
    none = relevance.answered([0.3, 0.1], 0.5, float)
    assert (none.kept, none.below, none.closest, none.nothing) == ([], 2, 0.3, True)
    assert relevance.answered([], 0.5, float).nothing is False


def test_above_floor_keeps_order_and_says_how_close_the_best_came():
    kept = relevance.above_floor([0.9, 0.2, 0.5], 0.3, float)
    assert (kept.kept, kept.below, kept.closest, kept.nothing) == ([0.9, 0.5], 1, None, False)
    none = relevance.above_floor([0.1, 0.25], 0.3, float)
    assert (none.kept, none.closest, none.nothing) == ([], 0.25, True)
    assert relevance.above_floor([], 0.3, float).nothing is False  # nothing ranked is not "below the floor"
