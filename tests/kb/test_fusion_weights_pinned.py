"""The tuned fusion weights, pinned to the values docs/benchmarks.md reports (chosen on the tuning thirds):
search's lexical leg weighs 0.5 of a question's score and 0.9 of an identifier look-up's, and the
hybrid conversation ranker's (hybrid-1) 0.8 (0.9 for a look-up). A change of either is a retuning: update the docs with it."""

from __future__ import annotations

import pytest

from memgate.manager.conversations.ranking import HybridRanker, RecallCandidate
from memgate.manager.kb.search import fusion_weights


@pytest.mark.parametrize(
    "query, lexical, vector",
    [
        ("How does the with statement work?", 0.5, 0.5),
        ("sqlite3.connect is slow when the file is on a network share", 0.5, 0.5),
        ("asyncio.TaskGroup", 0.9, 0.1),
        ("lru_cache", 0.9, 0.1),
    ],
)
def test_search_weighs_the_lexical_leg_as_the_benchmarks_tuned_it(query, lexical, vector):
    weights = fusion_weights(query)
    assert weights["lexical"] == pytest.approx(lexical) and weights["vector"] == pytest.approx(vector)


def _candidate(
    seq: int, *, lexical: float | None = None, cosine: float | None = None, rank: int = 1
) -> RecallCandidate:
    return RecallCandidate(
        seq=seq,
        id=f"turn_{seq}",
        kind="turn",
        conversation_id="conv_1",
        turn_index=seq,
        first_turn=None,
        said_at="2026-01-01T00:00:00.000Z",
        speaker="Jane",
        text=f"Jane (1 Jan 2026): words {seq}",
        lexical_score=lexical,
        lexical_rank=rank if lexical is not None else None,
        cosine=cosine,
        vector_rank=rank if cosine is not None else None,
    )


@pytest.mark.parametrize(
    "question, lexical, vector",
    [("What did we decide about the warmup?", 0.8, 0.2), ("lr_scheduler", 0.9, 0.1)],
)
def test_the_conversation_ranker_weighs_its_legs_as_the_benchmarks_tuned_it(question, lexical, vector):
    """One turn only the lexical leg found and one only the vector leg found, each its leg's best:
    their scores are the two weights."""
    only_words, only_meaning = _candidate(1, lexical=7.5), _candidate(2, cosine=0.42)
    scores = {r.candidate.seq: r.score for r in HybridRanker().rank(question, [only_words, only_meaning])}
    assert scores == {1: pytest.approx(lexical), 2: pytest.approx(vector)}


def test_only_the_rankers_best_eight_turns_bring_their_neighbours():
    """Ten turns the lexical leg ranked 1..10: the best eight bring two turns on each side, the rest none."""
    turns = [_candidate(n, lexical=20.0 - n, rank=n) for n in range(1, 11)]
    ranked = HybridRanker().rank("What did we decide about the warmup?", turns)
    assert [(r.candidate.seq, r.before, r.after) for r in ranked] == [(n, 2, 2) for n in range(1, 9)] + [
        (9, 0, 0),
        (10, 0, 0),
    ]


def test_the_wired_conversation_ranker_is_turns_1_with_the_weights_the_study_chose():
    """The ranker the product wires (turns-1) and its weights, as docs/benchmarks.md's LoCoMo section reports
    them (chosen on the tuning conversations): a change is a retuning, to be measured and documented."""
    from memgate.manager.conversations import recall_rank
    from memgate.manager.conversations.ranking import RANKER, TurnRanker

    assert isinstance(RANKER, TurnRanker) and RANKER.name == "turns-1"
    assert RANKER.weights == recall_rank.RecallWeights(
        vector=0.2,
        fusion="convex",
        previous=0.2,
        following=0.1,
        second=0.2,
        conversation=0.2,
        conversation_top=1,
        other_speaker=0.5,
        temporal=0.3,
        expand_top=50,
        window=2,
    )
