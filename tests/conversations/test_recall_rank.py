"""The recall ranker on small hand-made conversations: each step of a turn's score, and what it hands back.

Two threads of one user, Ann and Bob talking; the legs' candidates are written by hand as the fetch
would return them (lexical: bm25 negated, best first; vector: cosine, best first).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest

from memgate.manager.conversations.recall_rank import (
    WEIGHTS,
    Candidate,
    RecallWeights,
    embedding_text,
    index_text,
    lexical_query,
    rank_turns,
    said_on,
    vector_query,
)

MAY = datetime(2023, 5, 8, 13, 56)
TRIP = [
    ("Ann", "Did you go anywhere last month?"),
    ("Bob", "We drove to the coast for a week of camping."),
    ("Ann", "Camping at the coast sounds lovely."),
    ("Bob", "Yes, we pitched the tent by the dunes."),
    ("Ann", "I should try that."),
]
BAKING = [
    ("Ann", "I baked sourdough yesterday."),
    ("Bob", "How did the sourdough turn out?"),
    ("Ann", "Crusty, and the kids loved it."),
]
TURNS = {("trip", n): Candidate("trip", n, s, t, MAY) for n, (s, t) in enumerate(TRIP, start=1)} | {
    ("bake", n): Candidate("bake", n, s, t, MAY) for n, (s, t) in enumerate(BAKING, start=1)
}
#: the ranker's steps all off: a turn's score is its own legs' only
OFF = RecallWeights(vector=0.3, previous=0, following=0, second=0, conversation=0, other_speaker=1, temporal=0)


def lex(*found: tuple[str, int, float]) -> list[Candidate]:
    return [replace(TURNS[c, i], lexical_rank=n, lexical_score=s) for n, (c, i, s) in enumerate(found, start=1)]


def vec(*found: tuple[str, int, float]) -> list[Candidate]:
    return [replace(TURNS[c, i], vector_rank=n, cosine=s) for n, (c, i, s) in enumerate(found, start=1)]


class Fetch:
    """The neighbour fetch: records what it was asked for and returns the turns that exist."""

    def __init__(self):
        self.asked: list[list[tuple[str, int]]] = []

    def __call__(self, ids):
        self.asked.append(list(ids))
        return [TURNS[i] for i in ids if i in TURNS]


def ids(recall) -> list[tuple[str, int]]:
    return [r.id for r in recall.turns]


def test_a_reply_next_to_a_match_is_fetched_and_ranked_though_no_leg_listed_it():
    fetch = Fetch()
    recall = rank_turns("Where did Bob go camping?", lex(("trip", 3, 4.0)), [], fetch, replace(OFF, following=0.3))
    # One fetch, of the turns within two of the candidate, in the same thread, that are not candidates.
    assert fetch.asked == [[("trip", 1), ("trip", 2), ("trip", 4), ("trip", 5)]]
    assert ids(recall)[:2] == [("trip", 3), ("trip", 2)]
    second = recall.turns[1]
    assert second.reason == "before a match (turn 3)" and 0 < second.relevance < 1
    assert recall.turns[0].relevance == 1.0 and recall.turns[0].reason == "lexical #1"
    assert set(recall.neighbours) == {("trip", 1), ("trip", 2), ("trip", 4), ("trip", 5)}
    # With the neighbour steps off, the neighbours are still listed, but below every match.
    flat = rank_turns("Where did Bob go camping?", lex(("trip", 3, 4.0)), [], Fetch(), OFF)
    assert [r.relevance for r in flat.turns[1:]] == [0.0] * 4


def test_an_answer_after_the_matching_question_inherits_the_previous_turns_score():
    recall = rank_turns("How did it turn out?", lex(("bake", 2, 3.0)), [], Fetch(), replace(OFF, previous=0.3))
    assert ids(recall)[:2] == [("bake", 2), ("bake", 3)]
    assert recall.turns[1].reason == "after a match (turn 2)"


def test_prefetched_neighbours_count_as_the_callback_does_and_unasked_turns_are_ignored():
    stray = Candidate("elsewhere", 1, "Ann", "Camping forever", MAY)
    given = [TURNS["trip", 2], TURNS["trip", 4], stray]
    recall = rank_turns("camping", lex(("trip", 3, 4.0)), [], given, WEIGHTS)
    assert ("elsewhere", 1) not in ids(recall) and {("trip", 2), ("trip", 4)} <= set(ids(recall))


def test_without_a_neighbour_source_only_candidates_are_ranked():
    recall = rank_turns("camping", lex(("trip", 3, 4.0), ("trip", 2, 2.0)), [], None, WEIGHTS)
    assert ids(recall) == [("trip", 3), ("trip", 2)] and recall.neighbours == []


def test_the_speaker_the_question_names_outranks_the_other_at_equal_scores():
    both = lex(("trip", 2, 2.0), ("trip", 3, 2.0))  # Bob's turn 2, Ann's turn 3
    assert ids(rank_turns("What did Ann say about the coast?", both, [], None, OFF)) == [("trip", 2), ("trip", 3)]
    named = rank_turns("What did Ann say about the coast?", both, [], None, replace(OFF, other_speaker=0.5))
    assert ids(named) == [("trip", 3), ("trip", 2)]
    assert named.turns[1].relevance == pytest.approx(0.5)
    # A question naming nobody leaves both as they were.
    assert ids(rank_turns("What about the coast?", both, [], None, replace(OFF, other_speaker=0.5))) == [
        ("trip", 2),
        ("trip", 3),
    ]


def test_a_when_question_prefers_the_turn_that_says_when():
    found = lex(("bake", 2, 2.0), ("bake", 1, 1.8))  # turn 1 says "yesterday"
    assert ids(rank_turns("sourdough", found, [], None, replace(OFF, temporal=0.3)))[0] == ("bake", 2)
    assert ids(rank_turns("When did Ann bake sourdough?", found, [], None, replace(OFF, temporal=0.3)))[0] == (
        "bake",
        1,
    )


def test_a_turn_in_the_conversation_of_a_strong_match_outranks_an_equal_turn_elsewhere():
    found = lex(("trip", 2, 4.0), ("bake", 1, 2.0), ("trip", 4, 2.0))
    assert ids(rank_turns("x", found, [], None, OFF))[1:] == [("bake", 1), ("trip", 4)]  # tie: by id
    strong = rank_turns("x", found, [], None, replace(OFF, conversation=0.2, conversation_top=1))
    assert ids(strong)[1:] == [("trip", 4), ("bake", 1)]
    # The strongest conversation counts 1 whatever its best turn's own score (here 0.7, the lexical share):
    # a fetched turn of it with no own score gets the whole 0.2, against the best turn's 0.7 + 0.2.
    fetched = rank_turns("x", lex(("trip", 2, 4.0)), [], Fetch(), replace(OFF, conversation=0.2))
    assert {r.id: r.relevance for r in fetched.turns}[("trip", 3)] == pytest.approx(0.2 / 0.9)


def test_a_conversations_strength_can_sum_its_best_turns():
    found = lex(("bake", 1, 2.0), ("trip", 2, 2.0), ("trip", 4, 1.5))
    assert ids(rank_turns("x", found, [], None, replace(OFF, conversation=0.2)))[:2] == [("bake", 1), ("trip", 2)]
    summed = rank_turns("x", found, [], None, replace(OFF, conversation=0.2, conversation_top=2))
    assert ids(summed)[:2] == [("trip", 2), ("bake", 1)]


def test_convex_fusion_weighs_each_leg_by_its_best_and_rrf_by_rank():
    lexical = lex(("trip", 2, 10.0), ("trip", 4, 9.0))
    vector = vec(("trip", 4, 0.6), ("bake", 1, 0.5))
    fused = rank_turns("coast", lexical, vector, None, OFF)
    assert ids(fused) == [("trip", 4), ("trip", 2), ("bake", 1)]  # both legs beat either alone
    assert fused.turns[0].reason == "lexical #2, vector #1"
    # Each leg's score is over its best: 0.7 * 0.9 + 0.3 * 1 against 0.7 * 1.
    assert fused.turns[1].relevance == pytest.approx(0.7 / (0.7 * 0.9 + 0.3))
    assert ids(rank_turns("coast", lexical, vector, None, replace(OFF, vector=0.0)))[:2] == [("trip", 2), ("trip", 4)]
    rrf = rank_turns("coast", lexical, vector, None, replace(OFF, fusion="rrf"))
    assert ids(rrf)[0] == ("trip", 4)
    with pytest.raises(ValueError, match="fusion"):
        rank_turns("coast", lexical, vector, None, replace(OFF, fusion="max"))


def test_a_turn_listed_twice_by_one_leg_keeps_its_better_rank_and_counts_once():
    twice = lex(("trip", 2, 4.0), ("trip", 2, 1.0), ("trip", 4, 2.0))
    recall = rank_turns("coast", twice, [], None, OFF)
    assert ids(recall) == [("trip", 2), ("trip", 4)] and recall.turns[0].reason == "lexical #1"
    assert recall.turns[1].relevance == pytest.approx(0.5)


def test_no_candidates_rank_nothing():
    fetch = Fetch()
    assert rank_turns("anything", [], [], fetch).turns == [] and fetch.asked == []


def test_the_lexical_query_leaves_out_the_speakers_it_names():
    speakers = ["Caroline", "Melanie Smith"]
    assert lexical_query("When did Caroline go to the support group?", speakers) == "When did go to the support group?"
    assert lexical_query("What is Melanie's favourite book?", speakers) == "What is favourite book?"
    assert lexical_query("What did Melanie Smith tell Jenna?", speakers) == "What did tell Jenna?"
    assert lexical_query("Caroline?", speakers) == "Caroline?"  # nothing else to search for


def test_what_is_indexed_embedded_and_searched():
    assert said_on(MAY) == "8 May 2023" and said_on("2023-05-08T13:56:00Z") == "8 May 2023" and said_on(None) == ""
    assert index_text("Ann", MAY, "Hi") == "Ann (8 May 2023): Hi" and index_text("Ann", None, "Hi") == "Ann: Hi"
    assert embedding_text("Bob", MAY, "Yes!", "Did you go?") == "Bob (8 May 2023): Yes! (replying to: Did you go?)"
    assert embedding_text("Bob", MAY, "Yes!", None) == "Bob (8 May 2023): Yes!"
    assert vector_query("When did Caroline go to the support group?") == "caroline go support group"
    assert vector_query("Why?") == "why"
