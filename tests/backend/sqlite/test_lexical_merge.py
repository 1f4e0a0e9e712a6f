"""A tenant's lexical indexes stay few segments under one-row writes, and `memgate optimize` merges them into one.

Every captured turn and every small ingest is one transaction, and each adds an FTS5 segment; a query
reads every segment (docs/benchmarks.md, "Lexical indexes"). Counted from each index's structure
record, no timing.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from cli_helpers import cli_runner
from kb_helpers import ACME, GLOBEX, add_doc, hashing_manager

from memgate.manager.backend.base import ChunkFilters, RecallFilters
from memgate.manager.backend.sqlite import lexical, lexical_merge
from memgate.manager.clock import now_iso

SYLLABLES = ("ka", "lo", "mi", "ra", "ten", "vo", "su", "pel", "dar", "ni", "go", "fe", "ruk", "sha")
#: 2,744 made-up words: each write brings terms of its own, as speech does, so segments have pages to merge
WORDS = [a + b + c for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES]
#: one-row writes of each kind per tenant: FTS5's defaults (crisismerge 16) let 18 segments pile up
WRITES = 120
#: the most segments an index may hold meanwhile: with the templates' crisismerge 4 it held at most 7
BOUND = 9


def _line(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(40))


def _write(manager, identity, n: int, seed: int, *, watch=None) -> list[int]:
    """n turns and n one-chunk documents, each its own transaction; the segment counts seen after each."""
    rng = random.Random(seed)
    seen = []
    for i in range(n):
        manager.record_turn(replace(identity, thread="talk"), "user", _line(rng))
        add_doc(manager, identity, f"note {i}", _line(rng))
        if watch is not None:
            seen.append(watch())
    return seen


def _index_names(backend, tenant: str) -> tuple[str, str]:
    with backend.unwalled_connection() as conn:
        return lexical_merge.index_names(lexical.slots(conn)[tenant])


def _segments(backend, tenant: str) -> tuple[int, int]:
    kb, recall = _index_names(backend, tenant)
    with backend.unwalled_connection() as conn:
        return lexical_merge.segments(conn, kb), lexical_merge.segments(conn, recall)


def _found(backend, identity) -> tuple[list, list]:
    """What the two BM25 legs return for a few words, best first."""
    with backend.session(identity) as s:
        query = " ".join(WORDS[:3])
        return (
            s.kb_lexical(query, 20, ChunkFilters(now=now_iso())),
            s.recall_lexical(query, 20, RecallFilters(user=identity.user, agent=identity.agent)),
        )


@pytest.fixture
def manager(backend, sqlite_path, monkeypatch):
    invoke = cli_runner(sqlite_path, monkeypatch)
    for tenant in ("acme", "globex"):
        invoke("init", "-t", tenant)
    return hashing_manager(backend)


def test_the_segment_count_is_read_from_the_structure_record(manager, backend):
    _write(manager, ACME, 42, seed=1)
    for index in _index_names(backend, "acme"):
        with backend.unwalled_connection() as conn:
            (in_idx,) = conn.execute(f"SELECT count(DISTINCT segid) FROM {index}_idx").fetchone()
            assert lexical_merge.segments(conn, index) == in_idx > 1


def test_one_row_writes_keep_each_index_under_the_template_s_bound(manager, backend):
    """The templates set crisismerge 4: a level is merged as soon as it holds four segments, so the
    index never holds the dozen and more that FTS5's defaults let pile up."""
    seen = _write(manager, ACME, WRITES, seed=2, watch=lambda: _segments(backend, "acme"))
    assert max(kb for kb, _ in seen) <= BOUND
    assert max(recall for _, recall in seen) <= BOUND


def test_optimize_merges_each_index_into_one_segment_and_finds_the_same_rows(
    manager, backend, sqlite_path, monkeypatch
):
    _write(manager, ACME, WRITES, seed=3)
    before = _found(backend, ACME)
    assert all(n > 1 for n in _segments(backend, "acme"))
    invoke = cli_runner(sqlite_path, monkeypatch)
    out = invoke("optimize", "-t", "acme", "--pages", "2").output
    kb, recall = _index_names(backend, "acme")
    assert f"acme {kb}: " in out and f"acme {recall}: " in out and "-> 1 segment(s)" in out
    assert _segments(backend, "acme") == (1, 1)
    assert _found(backend, ACME) == before
    assert "-> 1 segment(s)" in invoke("optimize", "-t", "acme").output  # again: nothing left to do, still 1


def test_optimize_of_one_tenant_leaves_the_other_s_indexes_as_they_were(manager, backend, sqlite_path, monkeypatch):
    _write(manager, ACME, 30, seed=4)
    _write(manager, GLOBEX, 30, seed=5)
    globex_before, globex_found = _segments(backend, "globex"), _found(backend, GLOBEX)
    cli_runner(sqlite_path, monkeypatch)("optimize", "-t", "acme")
    assert _segments(backend, "acme") == (1, 1)
    assert _segments(backend, "globex") == globex_before != (1, 1)
    assert _found(backend, GLOBEX) == globex_found


def test_a_merge_step_is_bounded_so_writers_wait_for_one_step_only(manager, backend):
    _write(manager, ACME, 60, seed=6)
    kb, _ = _index_names(backend, "acme")
    with backend.unwalled_connection() as conn:
        steps = lexical_merge.merge_index(conn, kb, pages=1)
        assert steps > 1 and lexical_merge.segments(conn, kb) == 1
        assert lexical_merge.merge_index(conn, kb, pages=1) == 0
        with pytest.raises(ValueError, match="pages must be at least 1"):
            lexical_merge.merge_index(conn, kb, pages=0)


def test_optimize_without_a_tenant_merges_every_tenant_and_refuses_bad_pages(
    manager, backend, sqlite_path, monkeypatch
):
    _write(manager, ACME, 20, seed=7)
    _write(manager, GLOBEX, 20, seed=8)
    invoke = cli_runner(sqlite_path, monkeypatch)
    invoke("optimize")
    assert _segments(backend, "acme") == _segments(backend, "globex") == (1, 1)
    assert "--pages" in invoke("optimize", "--pages", "0", code=2).output
