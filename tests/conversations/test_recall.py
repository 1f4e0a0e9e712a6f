"""Recall across conversations: what a user said in one thread comes back in the next, ranked, dated, with
who said it; the tenant's policy decides which conversations count; expand brings the turns around it."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from backend_helpers import operator_rows
from context_helpers import slice_text

from memgate.manager import ACME, NotIssued
from memgate.manager.context.render import record

QUESTION = "What was the order number of the Lisbon flight?"
ORDER = "I booked the flight to Lisbon, order FL-4471, for 320 EUR."


def jane(thread: str, agent: str | None = ACME.agent):
    return replace(ACME, agent=agent, thread=thread)


def _recalled(window) -> str:
    return slice_text(window.text, "recalled_history")


@pytest.fixture
def trip(manager, two_tenants):
    """jane's trip conversation (thread trip-1, 8 May 2023): the flight, then small talk."""
    who = jane("trip-1")
    manager.record_turn(who, "user", "Planning my spring trip now.", said_at="2023-05-08T13:50:00Z")
    manager.record_turn(who, "user", ORDER, said_at="1:56 pm on 8 May, 2023")
    manager.record_turn(who, "assistant", "Noted: FL-4471, 320 EUR. When do you fly?", said_at="2023-05-08T13:57:00Z")
    manager.record_turn(who, "user", "On the 20th of May.", said_at="2023-05-08T13:58:00Z")
    return manager


def test_a_turn_said_in_one_thread_is_recalled_in_the_next_with_who_said_it_and_when(trip):
    window = trip.assemble_context(jane("trip-2"), QUESTION, "fact_check")
    recalled = _recalled(window)
    assert f"<content>jane: {ORDER}</content>" in recalled
    turn = re.search(r'<memory id="([^"]+)" type="conversation"[^>]* turn="2" said_on="8 May 2023">', recalled)
    assert turn is not None, recalled
    # its neighbours come along (the ranker asks for one on each side of its best turns)
    assert "Noted: FL-4471, 320 EUR." in recalled and "Planning my spring trip" in recalled
    entry = next(m for m in window.manifest["memories"] if m["memory_id"] == turn.group(1))
    assert entry["slice"] == "recalled_history" and window.manifest["recall_ranker"] == "turns-1"


def test_the_recall_leg_ranks_the_turn_first_with_both_legs_scores(trip):
    ranked = trip.recall_conversations(jane("trip-2"), QUESTION, limit=4)
    best = ranked[0]
    assert best.candidate.text == f"jane (8 May 2023): {ORDER}"
    assert best.candidate.lexical_rank == 1 and best.candidate.cosine is not None and best.score == pytest.approx(1.0)
    assert best.candidate.turn_index == 2
    # the turns around it are ranked too, fetched by place when no leg listed them
    assert {r.candidate.turn_index for r in ranked} == {1, 2, 3, 4}
    assert all(0 < r.score < 1 for r in ranked[1:])


def test_the_current_conversations_tail_is_not_recalled_twice(trip):
    window = trip.assemble_context(jane("trip-1"), QUESTION, "fact_check")
    tail = window.text[window.text.find('<slice name="volatile_tail">') :]
    assert ORDER in tail and ORDER not in _recalled(window)


@pytest.mark.parametrize(
    ("policy", "asker", "sees"),
    [
        # default: exactly the caller's user and agent
        ("same_user_agent", jane("q", agent="reviewer"), set()),
        ("same_user_agent", jane("q", agent=None), {"alone"}),  # no agent: its own agent-less conversations
        ("same_user_agent", jane("q"), {"trip"}),
        # the user's conversations the wall shows: its own agent's and those of no agent, never another agent's
        ("same_user", jane("q", agent="reviewer"), {"alone"}),
        ("same_user", jane("q"), {"trip", "alone"}),
        # only the current conversation
        ("this_thread", jane("q"), set()),
        ("this_thread", jane("trip-1"), set()),  # the trip turns are its tail, not recall
    ],
)
def test_the_recall_policy_decides_which_conversations_count(trip, policy, asker, sees):
    trip.record_turn(jane("alone", agent=None), "user", "Without an agent I said: my Lisbon flight is FL-4471.")
    if policy != "same_user_agent":
        trip.set_recall_policy(ACME, policy)
    recalled = _recalled(trip.assemble_context(asker, QUESTION, "fact_check"))
    found = {name for name, text in (("trip", ORDER), ("alone", "Without an agent I said")) if text in recalled}
    assert found == sees


def test_this_thread_recalls_the_current_conversations_turns_older_than_its_tail(trip):
    trip.set_recall_policy(ACME, "this_thread")
    who = jane("trip-1")
    for i in range(25):  # push the order out of the 20-turn tail
        trip.record_turn(who, "user", f"Small talk number {i} about the weather and gardening.")
    window = trip.assemble_context(who, QUESTION, "fact_check")
    tail = window.text[window.text.find('<slice name="volatile_tail">') :]
    assert ORDER in _recalled(window) and ORDER not in tail
    assert "this_thread" == trip.recall_policy(ACME).policy and trip.recall_policy(ACME).version == 1


def test_a_bad_recall_policy_is_refused_naming_the_field(trip):
    from memgate.manager import InvalidArgument

    with pytest.raises(InvalidArgument, match="policy must be one of same_user_agent, same_user, this_thread"):
        trip.set_recall_policy(ACME, "everyone")
    assert trip.recall_policy(ACME).version == 0


def test_expand_brings_a_recalled_turns_neighbours_back(trip):
    who = jane("trip-2")
    window = trip.assemble_context(who, QUESTION, "fact_check")
    order_id = next(
        m["memory_id"]
        for m in window.manifest["memories"]
        if m["slice"] == "recalled_history" and m["type"] == "conversation"
    )
    out = trip.expand(who, order_id)
    lines = [ln for ln in out.text.splitlines() if ln.startswith("<content>")]
    assert out.text.splitlines()[0].startswith(f"expand: {order_id} | window: ")
    assert lines[:4] == [
        "<content>jane: Planning my spring trip now.</content>",
        f"<content>jane: {ORDER}</content>",
        "<content>research-assistant: Noted: FL-4471, 320 EUR. When do you fly?</content>",
        "<content>jane: On the 20th of May.</content>",
    ]
    with pytest.raises(NotIssued, match="was not issued"):  # a turn this window did not hold
        trip.expand(who, "cnv_never_shown")


def test_a_summarised_turn_is_reachable_exactly_through_its_summary(manager, two_tenants):
    who = jane("long")
    said = [f"Ticket INC-{4000 + i} was escalated by team {i % 3} at cost ${100 + i}.50." for i in range(12)]
    for i, text in enumerate(said):
        manager.record_turn(who, "user" if i % 2 == 0 else "assistant", text)
    summary = manager.compact_conversation(who, "fact_check", force=True)
    assert summary is not None
    for text in said[:10]:  # every identifier and amount verbatim in the summary
        for term in re.findall(r"INC-\d+|\$\d+\.50", text):
            assert term in summary["content"]
    # a fresh thread recalls the summary; expanding it gives the raw turns, exactly
    fresh = jane("later")
    window = manager.assemble_context(fresh, "Which ticket was escalated by team 1 at cost $104.50?", "fact_check")
    assert any(m["memory_id"] == summary["id"] for m in window.manifest["memories"]), _recalled(window)
    out = manager.expand(fresh, summary["id"])
    for text in said[:10]:
        assert text in out.text
    raw = next(r for r in operator_rows(manager.backend, "conversation_memory", "WHERE content = :t", {"t": said[4]}))
    again = manager.expand(fresh, raw["id"])  # a turn under a summary the window holds: itself and its neighbours
    assert said[4] in again.text and said[3] in again.text and said[5] in again.text


def test_window_3_shows_a_turn_with_its_speaker_and_day_and_older_manifests_replay_as_they_were():
    row = {
        "id": "cnv_x",
        "role": "user",
        "speaker": "Caroline",
        "content": "I went to the support group.",
        "turn_index": 4,
        "valid_from": "2023-05-08T13:56:00.000Z",
    }
    now = record("conversation", row, tier="full", status="unverified")
    old = record("conversation", row, tier="full", status="unverified", renderer="window-2")
    assert 'turn="4" said_on="8 May 2023"' in now and "<content>Caroline: I went" in now
    assert 'valid_from="2023-05-08T13:56:00.000Z"' in old and "<content>user: I went" in old
