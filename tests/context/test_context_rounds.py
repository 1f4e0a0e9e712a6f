"""Tool rounds kept in the database: several server processes on one file share one window's count."""

from __future__ import annotations

import json
import threading
import uuid

import pytest
from backend_helpers import open_sqlite, operator_rows
from context_helpers import FACT_CHECK, JANE_IN_REVIEW

from memgate.manager import ACME, MemoryManager, ToolOutput
from memgate.manager.demo.dataset import ACME_BUDGET

NOTICE = "window: this context window's tool budget is spent"


def _refusing(manager) -> None:
    """The tenant's budget refuses calls past a spent window (the default answers them, not charged)."""
    manager.set_context_budget(ACME, {**ACME_BUDGET, "spent_rounds": "refuse"})


@pytest.mark.parametrize("refuse", [False, True])
def test_processes_racing_for_a_windows_rounds_get_exactly_max_rounds(manager, sqlite_path, two_tenants, refuse):
    if refuse:
        _refusing(manager)
    manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")  # max_rounds 3
    processes = [MemoryManager(open_sqlite(sqlite_path), embedder=manager.embedder) for _ in range(6)]
    barrier = threading.Barrier(len(processes))
    outputs = []

    def one_round(m: MemoryManager) -> None:
        barrier.wait()
        outputs.append(
            m.run_tool_round(
                JANE_IN_REVIEW,
                call_id=str(uuid.uuid4()),
                tool_name="lookup_entity",
                call=lambda: m.lookup_entity(JANE_IN_REVIEW, "model:helios-rag", "beir_ndcg10"),
            )
        )

    threads = [threading.Thread(target=one_round, args=(m,)) for m in processes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for m in processes:
        m.close()
    if refuse:
        assert sorted(o.status for o in outputs) == ["denied"] * 3 + ["ok"] * 3
    else:  # every call is answered; the three past the window's rounds say so and are not charged
        assert [o.status for o in outputs] == ["ok"] * 6
        assert sorted(bool(o.notice) for o in outputs) == [False] * 3 + [True] * 3
    recorded = operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'tool_result'")
    assert sorted(json.loads(e["content_json"])["round"] for e in recorded) == [1, 2, 3]


def test_a_round_bounds_the_result_by_what_the_reserve_has_left(manager, two_tenants):
    manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")  # tool reserve 1000
    out = manager.run_tool_round(
        JANE_IN_REVIEW,
        call_id="c-1",
        tool_name="search_memory",
        call=lambda: manager.search_memory(JANE_IN_REVIEW, "Helios BEIR evaluation"),
    )
    assert "| budget: 952 tokens" in out.text  # 1000 left, less the provenance line's 48
    assert out.tokens <= 1000


@pytest.mark.parametrize("refuse", [False, True])
def test_a_call_past_max_rounds_is_not_a_round_however_small_its_results(manager, two_tenants, refuse):
    """Tiny results leave the tool reserve almost whole, so only max_rounds (3) ends the window's rounds."""
    if refuse:
        _refusing(manager)
    manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    ran = []

    def tiny() -> ToolOutput:
        ran.append(1)
        return ToolOutput(text="ok", tokens=1)

    outputs = [
        manager.run_tool_round(JANE_IN_REVIEW, call_id=f"c-{n}", tool_name="lookup_entity", call=tiny) for n in range(4)
    ]
    recorded = operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'tool_result'")
    assert len(recorded) == 3
    if refuse:
        assert [o.status for o in outputs] == ["ok", "ok", "ok", "denied"] and len(ran) == 3
        assert outputs[3].text.startswith("This context window's tool rounds are spent (3 of 3)")
    else:
        assert [o.status for o in outputs] == ["ok"] * 4 and len(ran) == 4
        assert outputs[3].text == "ok" and outputs[3].notice.startswith(f"{NOTICE} (3 of 3 rounds)")


@pytest.mark.parametrize("refuse", [False, True])
def test_a_result_larger_than_the_reserve_left_is_not_charged_or_recorded(manager, two_tenants, refuse):
    """A tool that ignores its cap still cannot spend past the window's tool reserve (1000)."""
    if refuse:
        _refusing(manager)
    manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    out = manager.run_tool_round(
        JANE_IN_REVIEW,
        call_id="c-big",
        tool_name="lookup_entity",
        call=lambda: ToolOutput(text="helios " * 3000, tokens=3000),
    )
    if refuse:
        assert out.status == "denied" and out.text.startswith("This result needs ")
        assert out.text.endswith("more than the 1000 left of this context window's tool budget; narrow the request.")
    else:
        assert out.status == "ok" and out.text.startswith("helios ") and "more than the 1000 left" in out.notice
    assert operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'tool_result'") == []
