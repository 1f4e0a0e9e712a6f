"""jane's recall never shows bob's turns, another agent's or another tenant's: the wall decides what a row
is visible to, the recall policy only narrows. Checked through the context_window prompt, every default
tool, execute_query, and the walled views themselves."""

from __future__ import annotations

from dataclasses import replace

import pytest
from backend_helpers import operator_rows
from fastmcp import Client
from mcp_helpers import stdio_app

from memgate.manager import ACME, GLOBEX, load_tool_definitions

pytestmark = pytest.mark.anyio

JANE_MARK = "qzjanerecall1184"
BOB_MARK = "qzbobrecall5521"
AGENT_MARK = "qzagentrecall7733"
GLOBEX_MARK = "qzglobexrecall9046"
QUESTION = "Which lighthouse code did I give for the harbour trip?"
#: what each of the others said, in words the question shares, so only the wall keeps it out
SAID = "The lighthouse code for the harbour trip is {mark}."


@pytest.fixture
def said(manager, two_tenants):
    bob = replace(ACME, user="bob", thread="harbour")
    other_agent = replace(ACME, agent="reviewer", thread="harbour")
    globex_jane = replace(GLOBEX, user="jane", agent=ACME.agent, thread="harbour")  # same names, another tenant
    for who, mark in ((bob, BOB_MARK), (other_agent, AGENT_MARK), (globex_jane, GLOBEX_MARK)):
        manager.record_turn(who, "user", SAID.format(mark=mark))
    manager.record_turn(replace(ACME, thread="harbour"), "user", SAID.format(mark=JANE_MARK))
    return manager


def _leaks(text: str) -> list[str]:
    return [m for m in (BOB_MARK, AGENT_MARK, GLOBEX_MARK) if m in text]


@pytest.mark.parametrize("policy", ["same_user_agent", "same_user"])
async def test_janes_recall_never_shows_another_users_agents_or_tenants_turns_through_any_tool(
    sqlite_path, said, backend, policy
):
    if policy != "same_user_agent":
        said.set_recall_policy(ACME, policy)
    mcp, m = stdio_app(sqlite_path, user="jane", agent=ACME.agent, thread="next-day")
    seen: list[str] = []
    try:
        async with Client(mcp) as c:
            r = await c.get_prompt("context_window", {"question": QUESTION, "intent": "fact_check"})
            seen.append(r.messages[0].content.text)
            calls = {
                "search_memory": {"query": "lighthouse code for the harbour trip"},
                "lookup_entity": {"subject": "lighthouse"},
                "execute_query": {"query": "SELECT content, user_id, agent_id, speaker FROM conversation_memory"},
                "memory": {"command": "view", "path": "/memories"},
            }
            for name, arguments in calls.items():
                out = await c.call_tool(name, arguments, raise_on_error=False)
                seen.append(out.content[0].text)
            for table in ("summarization_memory", "conversation_memory"):
                q = f"SELECT * FROM {table} WHERE content LIKE '%lighthouse%'"
                seen.append((await c.call_tool("execute_query", {"query": q}, raise_on_error=False)).content[0].text)
            # ids of the others' turns: expand and remember refuse them without a word about them
            others = [
                r["id"]
                for r in operator_rows(
                    backend, "conversation_memory", "WHERE event_type = 'turn' AND content LIKE '%lighthouse%'"
                )
                if _leaks(r["content"])
            ]
            assert len(others) == 3
            for turn in others:
                for name, arguments in (
                    ("expand", {"memory_id": turn}),
                    ("remember", {"content": "the lighthouse code", "evidence": [turn]}),
                ):
                    out = await c.call_tool(name, arguments, raise_on_error=False)
                    text = out.content[0].text  # (past the window's rounds, after the window's notice line)
                    assert out.is_error or "\nrefused | rule: evidence" in text, text
                    seen.append(text)
    finally:
        m.close()
    assert JANE_MARK in seen[0]  # her own turn of another thread is recalled
    assert [(n, _leaks(t)) for n, t in enumerate(seen) if _leaks(t)] == []
    ranked = said.recall_conversations(replace(ACME, thread="next-day"), QUESTION, limit=50)
    assert [_leaks(r.candidate.text) for r in ranked if _leaks(r.candidate.text)] == []


def test_the_walled_recall_views_hold_only_the_callers_rows(said, backend):
    with backend.session(replace(ACME, thread="next-day")) as s:
        rows = s.raw("SELECT user_id, agent_id, tenant_id, content FROM conversation_recall")
        assert {(r["tenant_id"], r["user_id"], r["agent_id"]) for r in rows} == {("acme", "jane", ACME.agent)}
        matched = s.raw("SELECT seq FROM recall_match WHERE fts MATCH 'lighthouse'")
        assert len(matched) == 1
    every = operator_rows(backend, "conversation_recall")
    assert len(every) == 4 + 2  # the four speakers' turns and the demo conversation's two


def test_recall_rows_carry_no_thread_and_the_wall_refuses_writing_anothers(said, backend):
    from memgate.manager import AccessDenied

    with backend.session(replace(ACME, user="bob")) as s:
        with pytest.raises(AccessDenied, match="scoped to another user, agent or thread"):
            s.insert(
                "conversation_recall",
                {
                    "id": "cnv_forged",
                    "tenant_id": "acme",
                    "user_id": "jane",
                    "agent_id": ACME.agent,
                    "conversation_id": "conv_x",
                    "kind": "turn",
                    "said_at": "2026-01-01T00:00:00.000Z",
                    "content": "forged",
                },
            )
    assert [r for r in operator_rows(backend, "conversation_recall") if r["id"] == "cnv_forged"] == []
    assert load_tool_definitions()  # the default rows the prompt and tools above ran with
