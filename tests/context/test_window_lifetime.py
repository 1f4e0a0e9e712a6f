"""How long a context window lasts: rounds are counted per window, and a window ends.

Through a real `memgate serve` subprocess over stdio with a thread in its launch
configuration, as an IDE agent runs it: a window ends when the next question's window is
assembled, or after context.window_idle_s without an event; an ended window never blocks
a call.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace

import anyio
import pytest
from backend_helpers import operator_rows
from context_helpers import FACT_CHECK
from fastmcp import Client
from mcp_helpers import log_rows
from stdio_helpers import serve_stdio

from memgate.manager import ACME, ContextSettings, MemoryManager, NotIssued
from memgate.manager.demo.dataset import ACME_BUDGET

pytestmark = pytest.mark.anyio

IDLE_S = 5.0  # the test's window_idle_s: room for four calls on a loaded machine, short enough to wait out
SPENT = "window: this context window's tool budget is spent (3 of 3 rounds)"
LOOKUP = {"subject": "model:helios-rag", "predicate": "beir_ndcg10"}
SERVE = ["serve", "--tenant", "acme", "--user", "jane", "--agent", "research-assistant"]


async def _window(client, question: str, intent: str = "fact_check") -> str:
    r = await client.get_prompt("context_window", {"question": question, "intent": intent})
    return r.messages[0].content.text


async def _calls(client, n: int) -> list[str]:
    """n lookup_entity calls: each answer's first line (a round's provenance line, or a spent window's notice)."""
    out = []
    for _ in range(n):
        r = await client.call_tool("lookup_entity", LOOKUP, raise_on_error=False)
        out.append(r.content[0].text.splitlines()[0])
    return out


def _rounds(lines: list[str]) -> list[str]:
    return [
        "spent" if SPENT in x else (m.group(1) if (m := re.search(r"round: (\d+ of \d+)", x)) else "-") for x in lines
    ]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_stdio_thread_makes_any_number_of_calls_across_questions_and_windows_idle_out(
    sqlite_path, manager, backend, tmp_path, two_tenants, mode
):
    manager.set_context_budget(ACME, {**ACME_BUDGET, "usable_context": 8000})  # room for pointers to be rare
    transport = serve_stdio(
        ["--db", str(sqlite_path), *SERVE],
        tmp_path,
        MEMGATE_STDIO__THREAD="ide-session",
        MEMGATE_CONTEXT__WINDOW_IDLE_S=str(IDLE_S),
    )
    async with Client(transport, mode=mode) as c:
        before = await _calls(c, 4)  # no window yet: plain calls, any number
        await _window(c, FACT_CHECK)
        first = await _calls(c, 4)
        await _window(c, "Compare the July and August Helios runs", "comparison")  # the next question
        second = await _calls(c, 4)
        await anyio.sleep(IDLE_S + 0.5)  # the window idles out; a call past its rounds kept nothing alive
        after = await _calls(c, 5)
    assert _rounds(before) == ["-"] * 4
    assert _rounds(first) == ["1 of 3", "2 of 3", "3 of 3", "spent"]
    assert _rounds(second) == ["1 of 3", "2 of 3", "3 of 3", "spent"]
    assert _rounds(after) == ["-"] * 5  # an ended window never blocks a call
    rows = log_rows(backend, tenant_id="acme")
    assert len(rows) == 17 and {r["thread_id"] for r in rows} == {"ide-session"}
    assert [r["status"] for r in rows].count("denied") == 0  # a spent window still answers
    results = operator_rows(backend, "conversation_memory", "WHERE event_type = 'tool_result'")
    assert len(results) == 6 and {r["thread_id"] for r in results} == {"ide-session"}


def test_an_idle_window_issues_nothing_to_expand_and_bounds_nothing(manager, two_tenants):
    """In-process, with an evaluation time past the idle limit: the ended window is no window."""
    jane = replace(ACME, thread="idle-thread")
    short = MemoryManager(manager.backend, context=ContextSettings(window_idle_s=1), embedder=manager.embedder)
    probe = manager.assemble_context(ACME, FACT_CHECK, "fact_check").manifest
    fixed = sum(probe["arithmetic"]["fixed"].values())
    # A budget that leaves a memory as a pointer: the band between "in full" and "left out" is a few tokens
    # wide (a short turn's pointer costs nearly what the turn does), and the budget guideline's own size
    # moves with its id, so the test looks for it, from roomy to tight, instead of assuming one figure.
    for variable in range(420, 300, -2):
        manager.set_context_budget(ACME, {**ACME_BUDGET, "usable_context": 1900 + fixed + variable})
        window = short.assemble_context(jane, FACT_CHECK, "fact_check")
        pointers = [m["memory_id"] for m in window.manifest["memories"] if m["tier"] == "pointer"]
        if pointers:
            break
    pointer = pointers[0]
    assert short.expand(jane, pointer).rows >= 1  # issued, and the window is live (a turn brings its neighbours)
    time.sleep(1.2)
    with pytest.raises(NotIssued, match="was not issued"):
        short.expand(jane, pointer)
    out = short.run_tool_round(
        jane, call_id="c-idle", tool_name="lookup_entity", call=lambda: short.lookup_entity(jane, **LOOKUP)
    )
    assert not out.is_error and "round:" not in out.text
