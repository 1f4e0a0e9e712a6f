"""Conversation recall through the Session protocol, the same on every backend: both legs rank only the
caller's own turns, narrowed by the recall policy in the statement, and turn numbers come from the
conversation's counter."""

from __future__ import annotations

from dataclasses import replace

from kb_helpers import ACME, GLOBEX, hashing_manager

from memgate.manager.backend.base import RecallFilters

JANE = replace(ACME, user="jane", agent="helper", thread="t-1")
BOB = replace(ACME, user="bob", agent="helper", thread="t-1")


def test_both_recall_legs_rank_only_the_callers_turns_before_the_policy_narrows(backend):
    m = hashing_manager(backend)
    m.record_turn(JANE, "user", "The lighthouse code is amber seven.")
    m.record_turn(replace(JANE, agent="reviewer"), "user", "The lighthouse code for the reviewer is blue two.")
    m.record_turn(BOB, "user", "The lighthouse code is violet nine.")
    m.record_turn(replace(GLOBEX, user="jane", agent="helper", thread="t-1"), "user", "The lighthouse code is grey.")
    question = "What is the lighthouse code?"
    vector = m.embedder.embed([question])[0]
    with backend.session(replace(JANE, thread="t-2")) as s:
        exact = RecallFilters("jane", "helper")
        lexical = s.recall_lexical(question, 10, exact)
        cosine = s.recall_vector(vector, m.embedder.name, 10, exact)
        rows = s.fetch_all("recall_rows", seqs="[" + ",".join(str(q) for q, _ in lexical + cosine) + "]")
        assert {r["content"].split(": ", 1)[1] for r in rows} == {"The lighthouse code is amber seven."}
        assert s.recall_lexical(question, 10, RecallFilters("bob", "helper")) == []  # the wall, not the policy
        one = RecallFilters("jane", "helper", conversation=rows[0]["conversation_id"])
        assert [q for q, _ in s.recall_lexical(question, 10, one)] == [q for q, _ in lexical]
        assert s.recall_lexical(question, 10, RecallFilters("jane", "helper", conversation="conv_none")) == []


def test_turn_numbers_are_per_conversation_whoever_else_uses_the_thread_name(backend):
    m = hashing_manager(backend)
    numbers = [m.record_turn(who, "user", "hello")["turn_index"] for who in (JANE, BOB, JANE, BOB, JANE)]
    assert numbers == [1, 1, 2, 2, 3]
