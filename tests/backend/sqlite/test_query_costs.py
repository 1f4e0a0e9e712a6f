"""The SQLite mechanisms behind execute_query's bounds: cost gates, the deadline's watchdog, the limits,
and rows reduced as they are read."""

from __future__ import annotations

import sqlite3
import time

import pytest

from memgate.manager import ACME, MemoryManager, QueryRejected, now_iso
from memgate.manager.backend.base import BinaryLength
from memgate.manager.backend.sqlite.deadline import Deadline

ORDINARY = [
    "instr('haystack', 'st')",
    "instr('haystack', '')",
    "instr('héllo wörld', 'wö')",
    "instr(X'00010203', X'0203')",
    "instr(12345, 34)",
    "instr(1.5e100, 'e')",
    "instr(NULL, 'a')",
    "instr('a', NULL)",
    "replace('a-b-c', '-', '+')",
    "replace('abc', '', 'z')",
    "replace(1e100, 'e', 'E')",
    "replace(X'6162', 'b', 'c')",
    "replace('abc', 'b', NULL)",
    "replace(2.5, '.', ',')",
    "trim('..x..', '.')",
    "ltrim('xxhixx', 'x')",
    "rtrim('xxhixx', 'x')",
    "trim('ab', '')",
    "trim(NULL, 'a')",
    "trim(100, '0')",
    "ltrim('  héé  ', ' h')",
]


@pytest.mark.parametrize("expression", ORDINARY)
def test_a_gated_function_gives_sqlites_own_answer(backend, two_tenants, expression):
    expected = sqlite3.connect(":memory:").execute(f"SELECT {expression}, typeof({expression})").fetchone()
    with backend.query_connection(ACME) as conn:
        got = conn.execute(f"SELECT {expression}, typeof({expression})").fetchone()
    assert got == expected


def test_a_gated_call_past_its_budget_is_refused_at_once(backend, two_tenants):
    manager = MemoryManager(backend)
    started = time.monotonic()
    with pytest.raises(QueryRejected, match=r"^query refused \(rule too-costly\): a text function would compare"):
        manager.execute_query(
            ACME,
            "WITH RECURSIVE r(n, s) AS (SELECT 0, 'a' UNION ALL SELECT n + 1, s || s "
            "FROM r WHERE n < 19) SELECT instr(s, substr(s, 1, 300000) || 'b') FROM r",
        )
    assert time.monotonic() - started < 1  # the call itself would take seconds


def test_the_watchdog_ends_a_statement_whose_steps_are_slow():
    # Few VM steps, each slow: the progress handler (every 1000 steps) would wait for the end.
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.create_function("slow", 1, lambda n: time.sleep(0.02) or n)
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="^interrupted$"), Deadline(conn, 0.2) as deadline:
        conn.execute(
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 200) SELECT sum(slow(n)) FROM r"
        ).fetchall()
    assert deadline.passed and time.monotonic() - started < 1  # 200 steps of 20 ms would be 4 s


def test_the_one_watchdog_wakes_for_a_deadline_earlier_than_the_one_it_sleeps_until():
    # One watchdog thread serves every statement: a long deadline armed first must not delay a short one.
    idle = sqlite3.connect(":memory:", check_same_thread=False)
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.create_function("slow", 1, lambda n: time.sleep(0.02) or n)
    with Deadline(idle, 60):
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="^interrupted$"), Deadline(conn, 0.2):
            conn.execute(
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 200) SELECT sum(slow(n)) FROM r"
            ).fetchall()
        assert time.monotonic() - started < 1
        assert idle.execute("SELECT 1").fetchone() == (1,)  # the long one's connection is left alone


def test_a_disarmed_watchdog_leaves_the_next_statement_alone():
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.create_function("slow", 1, lambda n: time.sleep(0.01) or n)
    with Deadline(conn, 0.05):
        assert conn.execute("SELECT 1").fetchone() == (1,)
    # The next statement runs past the old deadline (20 steps of 10 ms): nothing may interrupt it.
    assert conn.execute(
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 20) SELECT sum(slow(n)) FROM r"
    ).fetchone() == (210,)


def test_text_arrives_cut_to_the_cell_width_and_binary_values_by_their_length(backend, two_tenants):
    rows = backend.run_readonly_query(
        ACME,
        "SELECT printf('%.900c', 'é') AS t, CAST('abcd' AS BLOB) AS b, 7 AS n",
        max_rows=5,
        timeout_s=5,
        now=now_iso(),
        max_chars=10,
    )
    assert rows.rows == [("é" * 11, BinaryLength(4), 7)]


def _document(backend, chars: int) -> None:
    with backend.session(ACME) as s:
        s.insert("knowledge_base_document", {"id": f"doc_big_{chars}", "title": "big", "content": "x" * chars})


def test_a_stored_value_up_to_the_length_limit_is_read_and_a_longer_one_refused(backend, two_tenants):
    manager = MemoryManager(backend)
    _document(backend, 1_000_000)
    out = manager.execute_query(
        ACME, "SELECT length(content) AS n, content FROM knowledge_base_document WHERE title = 'big'"
    )
    assert out.text.splitlines()[3] == "| 1000000 | <LOB> |"
    _document(backend, 1_100_000)
    with pytest.raises(QueryRejected, match=r"^query refused \(rule too-big\): .* the limit \(1 MiB\)\.$"):
        manager.execute_query(ACME, "SELECT length(content) FROM knowledge_base_document WHERE title = 'big'")


def test_a_result_wider_than_64_columns_is_refused(manager, two_tenants):
    manager.execute_query(ACME, f"SELECT {', '.join(['id'] * 64)} FROM entity_memory")
    with pytest.raises(QueryRejected, match=r"^query refused \(rule columns\): it returns more than 64 columns\.$"):
        manager.execute_query(ACME, f"SELECT {', '.join(['id'] * 65)} FROM entity_memory")


def test_a_like_pattern_over_100_bytes_is_refused(manager, two_tenants):
    manager.execute_query(ACME, f"SELECT id FROM entity_memory WHERE content LIKE '%{'a' * 98}%'")
    with pytest.raises(QueryRejected, match=r"^query refused \(rule pattern\): a LIKE or GLOB pattern is longer"):
        manager.execute_query(ACME, f"SELECT id FROM entity_memory WHERE content LIKE '%{'a' * 99}%'")
