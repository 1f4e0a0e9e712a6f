"""The tenant's relevance floor holds for recalled history as for evidence: a question with nothing
related in the caller's past conversations gets no recalled turns, a related one does. Through the
real server (the context_window prompt over an in-process fastmcp.Client)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from context_helpers import slice_text, window_prompt

from memgate.manager import ACME

pytestmark = pytest.mark.anyio

SAID = [
    ("user", "I finally booked the ferry to Hydra for the second week of June."),
    ("assistant", "Lovely. Did you take the early ferry or the afternoon one?"),
    ("user", "The early ferry, it leaves Piraeus at 7:30 and the cabin was 48 euros."),
    ("assistant", "Noted: Hydra, early ferry from Piraeus, 48 euros."),
]
RELATED = "What time does my ferry to Hydra leave Piraeus?"
OFF_TOPIC = "Which enzyme catalyses glycogen phosphorolysis in skeletal muscle?"


@pytest.fixture
def ferry(manager, two_tenants):
    who = replace(ACME, thread="holiday-1")
    for role, text in SAID:
        manager.record_turn(who, role, text, said_at="2023-05-08T13:50:00Z")
    return manager


def _recalled(text: str) -> str:
    return slice_text(text, "recalled_history")


async def _window(sqlite_path, question: str) -> str:
    return await window_prompt(sqlite_path, question, thread="holiday-2")


async def test_a_related_question_recalls_the_turns_and_an_off_topic_one_none(sqlite_path, ferry):
    related = _recalled(await _window(sqlite_path, RELATED))
    assert "leaves Piraeus at 7:30" in related, related
    off_topic = _recalled(await _window(sqlite_path, OFF_TOPIC))
    assert "Hydra" not in off_topic and "ferry" not in off_topic, off_topic


async def test_the_floor_is_the_tenants_a_floor_of_0_recalls_the_nearest_turns(sqlite_path, ferry):
    ferry.set_context_budget(ACME, {**ferry.context_budget(ACME).to_json(), "relevance_floor": 0.0})
    assert "ferry" in _recalled(await _window(sqlite_path, OFF_TOPIC))
