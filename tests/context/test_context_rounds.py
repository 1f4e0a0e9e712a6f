"""Tool rounds kept in the database: several server processes on one file share one window's count."""

from __future__ import annotations

import json
import threading
import uuid

from backend_helpers import open_sqlite, operator_rows
from context_helpers import FACT_CHECK, JANE_IN_REVIEW

from memgate.manager import MemoryManager


def test_processes_racing_for_a_windows_rounds_get_exactly_max_rounds(manager, sqlite_path, two_tenants):
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
    assert sorted(o.status for o in outputs) == ["denied"] * 3 + ["ok"] * 3
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
