"""Statements run on every call read the caller's rows by key, not by walking the tenant.

Each statement is planned as the backend runs it: its named text, under a walled session's view and
the wall's own predicates. "SEARCH ... (tenant_id=?)" alone still walks every row of the tenant
(every user's), so the plan must name the index and use the caller's column in its key.
"""

from __future__ import annotations

import pytest

from memgate.manager import ACME
from memgate.manager.backend.sql_files import load_sql

#: statement, its binds, the base table, the index and the key the plan must use
KEYED = [
    (
        "candidate_recent_count",
        {"created_by": "test:bob", "since": "2026-01-01T00:00:00.000Z"},
        "base_memory_candidate",
        "memory_candidate_creator_ix",
        "tenant_id=? AND created_by=? AND created_at>?",
    ),
    (
        "calllog_cited",
        {"id": "kbc_x"},
        "base_mcp_call_cited",
        "mcp_call_cited_ix",
        "tenant_id=? AND cited_id=?",
    ),
]


def _plan(backend, statement: str, binds: dict) -> list[str]:
    with backend.session(ACME) as s:
        return [r["detail"] for r in s.raw("EXPLAIN QUERY PLAN " + load_sql("sqlite", statement), binds)]


@pytest.mark.parametrize(("statement", "binds", "table", "index", "key"), KEYED, ids=[k[0] for k in KEYED])
def test_the_statement_reads_the_callers_rows_by_key(backend, statement, binds, table, index, key):
    plan = _plan(backend, statement, binds)
    on_table = [line for line in plan if f" {table} " in f" {line} "]
    assert on_table == [f"SEARCH {table} USING INDEX {index} ({key})"], plan
    assert not [line for line in plan if line.startswith("SCAN")], plan
