"""Summaries found by the question's words enter recalled history only when the question's calibrated
relevance to them reaches the tenant's floor, as recalled turns do: a question that shares one word with
a summary and is otherwise off its topic gets no recalled summary, a related one does. Through the real
server (the context_window prompt over an in-process fastmcp.Client)."""

from __future__ import annotations

import pytest
from context_helpers import slice_text, window_prompt

from memgate.manager import ACME

pytestmark = pytest.mark.anyio

#: the demo's jane holds sum_acme_july: "In July, Helios RAG reached nDCG@10 of 0.92 on BEIR, ahead of
#: the baseline."
RELATED = "What nDCG did Helios RAG reach on BEIR in July?"
#: shares "baseline" with it (so the summary statement finds it), and nothing else
OFF_TOPIC = "Which baseline judge called the fault at the Wimbledon final?"


def _recalled(text: str) -> str:
    return slice_text(text, "recalled_history")


async def _window(sqlite_path, question: str) -> str:
    return await window_prompt(sqlite_path, question, thread="q")


async def test_an_off_topic_question_recalls_no_summary_and_a_related_one_does(sqlite_path, two_tenants):
    assert "sum_acme_july" in _recalled(await _window(sqlite_path, RELATED))
    off_topic = _recalled(await _window(sqlite_path, OFF_TOPIC))
    assert "sum_acme_july" not in off_topic and "Helios" not in off_topic, off_topic


async def test_a_floor_of_0_recalls_a_summary_that_shares_a_word(sqlite_path, manager, two_tenants):
    manager.set_context_budget(ACME, {**manager.context_budget(ACME).to_json(), "relevance_floor": 0.0})
    assert "sum_acme_july" in _recalled(await _window(sqlite_path, OFF_TOPIC))
