"""Turns from every path: the context_window prompt records its question; `memgate turn`; record_turn."""

from __future__ import annotations

import pytest
from backend_helpers import operator_rows
from fastmcp import Client
from mcp_helpers import stdio_app

pytestmark = pytest.mark.anyio

MODES = ["auto", "legacy"]
TAIL = '<slice name="volatile_tail">'


def turns(backend, thread):
    """The turns of thread name `thread`'s conversations (turns carry their conversation, not the thread)."""
    return operator_rows(
        backend,
        "conversation_memory",
        "WHERE event_type = 'turn' AND conversation_id IN (SELECT id FROM base_conversation WHERE thread_name = :t)"
        " ORDER BY turn_index",
        {"t": thread},
    )


@pytest.mark.parametrize("mode", MODES)
async def test_a_host_that_only_renders_the_prompt_sees_its_earlier_questions_in_the_tail(
    sqlite_path, two_tenants, backend, mode
):
    mcp, manager = stdio_app(sqlite_path, user="jane", thread="prompt-only")
    try:
        async with Client(mcp, mode=mode) as c:
            first = "Which embedding model does Helios RAG use for retrieval?"
            r1 = await c.get_prompt("context_window", {"question": first, "intent": "fact_check"})
            assert TAIL not in r1.messages[0].content.text  # a new thread: no turns yet
            # the host renders the same request again (a retry, a re-render): nothing is added
            await c.get_prompt("context_window", {"question": first, "intent": "fact_check"})
            assert [t["content"] for t in turns(backend, "prompt-only")] == [first]
            second = "And what was its nDCG@10 on BEIR?"
            r2 = await c.get_prompt("context_window", {"question": second, "intent": "fact_check"})
            assert first in _tail(r2)
            recorded = turns(backend, "prompt-only")
            assert [(t["role"], t["content"], t["user_id"]) for t in recorded] == [
                ("user", first, "jane"),
                ("user", second, "jane"),
            ]
            assert [t["turn_index"] for t in recorded] == [1, 2]
    finally:
        manager.close()


def _tail(result) -> str:
    text = result.messages[0].content.text
    start = text.find(TAIL)
    assert start >= 0, text
    return text[start : text.find("</slice>", start)]


def _long_thread(manager, thread, n=40):
    from dataclasses import replace

    from memgate.manager import ACME

    who = replace(ACME, thread=thread)
    for i in range(1, n + 1):
        manager.record_turn(who, "user" if i % 2 else "assistant", f"Turn {i} on batch size {i * 8}. " * 4)


@pytest.mark.parametrize("mode", MODES)
async def test_the_prompt_compacts_a_long_thread_with_the_hosts_model_when_offered(
    sqlite_path, two_tenants, backend, mode
):
    import json

    mcp, manager = stdio_app(sqlite_path, user="jane", thread="sampled")
    asked = []

    async def sampling(messages, params, context):
        asked.append((messages[0].content.text, params.system_prompt, params.max_tokens))
        return "The user and assistant compared batch sizes."

    try:
        _long_thread(manager, "sampled")
        async with Client(mcp, mode=mode, sampling_handler=sampling) as c:
            r = await c.get_prompt("context_window", {"question": "Which batch size won?", "intent": "fact_check"})
        (event,) = operator_rows(backend, "conversation_memory", "WHERE event_type = 'compaction'")
        summariser = json.loads(event["content_json"])["summariser"]
        if mode == "legacy":  # the handshake era: the host's model, one bounded request
            assert summariser == "sampling" and len(asked) == 1
            assert "add no facts" in asked[0][1] and asked[0][2] <= 600
            assert "The user and assistant compared batch sizes." in _tail(r)  # with its numbers kept verbatim
        else:  # 2026-07-28: no server-initiated sampling here; the extractive summariser
            assert summariser == "extractive-v2" and asked == []
    finally:
        manager.close()
