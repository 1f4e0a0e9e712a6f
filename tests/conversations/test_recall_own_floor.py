"""Recalled history admits a turn only when it is relevant enough on its own: one relevant turn does not
bring the caller's unrelated turns along behind it. Through the real server (the context_window prompt
over an in-process fastmcp.Client), on the demo's jane, who holds two turns of a Helios review."""

from __future__ import annotations

from dataclasses import replace

import pytest
from context_helpers import slice_text, window_prompt

from memgate.manager import ACME
from memgate.manager.conversations.ranking import Ranked, RecallCandidate
from memgate.manager.conversations.recall import Ranking, each_at_floor

QUESTION = "How do I keep sourdough starter alive?"
#: the demo's review turns in jane's thread helios-review
REVIEW = ("what nDCG@10 did Helios RAG reach on BEIR", "I will check the current claim")


@pytest.mark.anyio
async def test_an_earlier_identical_question_is_recalled_and_the_unrelated_review_turns_are_not(
    sqlite_path, manager, two_tenants
):
    # the first session: jane asked the same question in a conversation of her own
    manager.record_turn(replace(ACME, thread="bread-1"), "user", QUESTION, said_at="2026-11-30T09:00:00Z")
    recalled = slice_text(await window_prompt(sqlite_path, QUESTION, thread=None), "recalled_history")
    assert "sourdough starter alive" in recalled, recalled
    for said in REVIEW:
        assert said not in recalled, recalled


def _turn(conversation: str, index: int) -> RecallCandidate:
    return RecallCandidate(
        seq=ord(conversation) * 1000 + index,
        id=f"{conversation}-{index}",
        kind="turn",
        conversation_id=conversation,
        turn_index=index,
        first_turn=None,
        said_at="2026-11-30T09:00:00Z",
        speaker="jane",
        text="",
        lexical_score=None,
        lexical_rank=None,
        cosine=None,
        vector_rank=None,
    )


def test_a_weak_turn_comes_only_beside_an_admitted_one_of_its_conversation():
    ranked = [
        Ranked(_turn("a", 10), 1.0),
        Ranked(_turn("a", 12), 0.1),  # two places after the match: it comes with it
        Ranked(_turn("a", 13), 0.1),  # three places: too far
        Ranked(_turn("b", 11), 0.1),  # another conversation's
        Ranked(_turn("b", 40), 0.9),  # strong enough on its own
    ]
    kept = [r.candidate.id for r in each_at_floor(Ranking(ranked, 0.9), 0.33)]
    assert kept == ["a-10", "a-12", "b-40"]
    assert each_at_floor(Ranking(ranked, 0.3), 0.33) == []  # the question itself below the floor
    assert len(each_at_floor(Ranking(ranked, 0.9), 0.0)) == len(ranked)  # a floor of 0 admits every one
