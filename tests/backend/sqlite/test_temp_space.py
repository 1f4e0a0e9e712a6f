"""The temp-space caps on execute_query's SQLite connection (temp_space.py): the process total across
concurrent queries, an ordinary sort that spills a little, and the figures the meter saw; whose a
temp file is (never a query's when it was open before the query started; its first claimer's when
it appears while several run), and which query the process total stops (one that holds some)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from memgate.manager import QueryRejected, now_iso
from memgate.manager.backend.sqlite.query import ReadonlyQueries
from memgate.manager.backend.sqlite.temp_space import (
    MB,
    TEMP_FILE_PREFIX,
    TempCaps,
    TempLedger,
    ledger,
    thread_written,
)
from memgate.manager.demo.dataset import ACME, GLOBEX

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="temp files are measured in /proc")

ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) "
SORT = ENDLESS + "SELECT x FROM c ORDER BY printf('%1000s',x) DESC"


def test_concurrent_queries_stop_at_the_process_total(backend, two_tenants):
    """Each query alone is far under its own cap; together they pass the total and both stop."""
    queries = ReadonlyQueries(backend.path)
    queries.temp_caps = TempCaps(query_bytes=1000 * MB, total_bytes=48 * MB)
    start = threading.Barrier(2)
    errors: dict[str, BaseException] = {}

    def attack(identity) -> None:
        start.wait()
        try:
            queries.run(identity, SORT, 10, 30, now_iso())
        except BaseException as exc:
            errors[identity.tenant] = exc

    threads = [threading.Thread(target=attack, args=(who,)) for who in (ACME, GLOBEX)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        queries.close()
    assert set(errors) == {"acme", "globex"}
    for exc in errors.values():
        with pytest.raises(QueryRejected, match=r"^query refused \(rule too-big\): the running queries together"):
            raise exc
        assert "more than 48 MB of temporary space" in str(exc)
    assert ledger.files() == {}, "temp files outlived their queries"


@pytest.fixture
def meters(monkeypatch):
    """Every meter the process ledger hands out, for their figures."""
    seen: list = []
    make = ledger.meter
    monkeypatch.setattr(ledger, "meter", lambda caps: seen.append(make(caps)) or seen[-1])
    return seen


def test_a_sort_that_spills_under_the_cap_answers(backend, two_tenants, meters):
    """20,000 rows of 1 KB sorted: SQLite spills them to temp files, under a 64 MB cap."""
    queries = ReadonlyQueries(backend.path)
    queries.temp_caps = TempCaps(query_bytes=64 * MB, total_bytes=64 * MB)
    sql = ENDLESS.replace("FROM c)", "FROM c WHERE x < 20000)") + "SELECT x FROM c ORDER BY printf('%1000s',x) DESC"
    try:
        rows = queries.run(ACME, sql, 3, 30, now_iso())
    finally:
        queries.close()
    assert [r[0] for r in rows.rows] == [20000, 19999, 19998]
    assert meters[0].stopped is None and 1 * MB < meters[0].peak_bytes < 64 * MB, meters[0]


def test_a_sort_over_the_cap_is_stopped_close_to_it(backend, two_tenants, meters):
    """The meter's own figure: stopped within a few MB past the cap (one check's worth of writing)."""
    queries = ReadonlyQueries(backend.path)
    queries.temp_caps = TempCaps(query_bytes=16 * MB, total_bytes=1024 * MB)
    try:
        with pytest.raises(QueryRejected, match=r"needed more than 16 MB of temporary space; add a LIMIT"):
            queries.run(ACME, SORT, 10, 30, now_iso())
    finally:
        queries.close()
    stop = meters[0].stopped
    assert stop.cap == "query" and 16 * MB < stop.query_bytes < 48 * MB, stop


def test_a_query_that_spills_nothing_never_lists_the_files(backend, two_tenants, meters):
    """Its thread writes nothing, so each check is one read of /proc/thread-self/io and no fd listing."""
    if thread_written() is None:
        pytest.skip("this kernel does not count a thread's writes (/proc/thread-self/io)")
    queries = ReadonlyQueries(backend.path)
    sql = ENDLESS.replace("FROM c)", "FROM c WHERE x < 1000000)") + "SELECT count(*) FROM c"
    try:
        assert queries.run(ACME, sql, 1, 30, now_iso()).rows == [(1000000,)]
    finally:
        queries.close()
    [meter] = meters
    assert meter.checks > 0 and meter.scans == 0 and meter.peak_bytes == 0, meter


def _held_temp_bytes() -> int:
    return sum(ledger.files().values())


def test_a_query_never_claims_temp_files_another_connection_opened_before_it(backend, two_tenants, meters):
    """Another connection of the process holds a sort's temp files (over 80 MB) open when a query
    starts; the query spills its own under a 64 MB cap and answers: what was open before it is not
    its, however large."""
    other = sqlite3.connect(backend.path)
    held = other.execute(
        ENDLESS.replace("FROM c)", "FROM c WHERE x < 90000)") + "SELECT x FROM c ORDER BY printf('%1000s',x)"
    )
    held.fetchone()  # the sort is done and its spill held open until the cursor ends
    queries = ReadonlyQueries(backend.path)
    queries.temp_caps = TempCaps(query_bytes=64 * MB, total_bytes=1024 * MB)
    sql = ENDLESS.replace("FROM c)", "FROM c WHERE x < 20000)") + "SELECT x FROM c ORDER BY printf('%1000s',x) DESC"
    try:
        assert _held_temp_bytes() > 80 * MB, "the other connection's sort spilled too little to prove anything"
        rows = queries.run(ACME, sql, 1, 30, now_iso())
    finally:
        queries.close()
        other.close()
    assert [r[0] for r in rows.rows] == [20000]
    meter = meters[0]
    assert meter.stopped is None and 1 * MB < meter.peak_bytes < 64 * MB, meter


def _spill(fd_dir: Path, name: str, size: int) -> None:
    """A temp file of `size` bytes, listed in `fd_dir` as a process lists its open descriptors."""
    path = fd_dir.parent / f"{TEMP_FILE_PREFIX}{name}"
    path.write_bytes(b"\0" * size)
    (fd_dir / str(len(list(fd_dir.iterdir())) + 3)).symlink_to(path)


@pytest.fixture
def fd_dir(tmp_path):
    listed = tmp_path / "fd"
    listed.mkdir()
    return listed


def test_a_file_that_appears_while_two_queries_run_is_counted_once_for_its_first_claimer(fd_dir):
    """Each query holds 2 MB of its own under a 3 MB cap: neither is stopped by the other's file."""
    ledger = TempLedger(fd_dir)
    caps = TempCaps(query_bytes=3 * MB, total_bytes=100 * MB)
    with ledger.meter(caps) as first, ledger.meter(caps) as second:
        _spill(fd_dir, "a", 2 * MB)
        assert not first.over() and first.peak_bytes == 2 * MB
        _spill(fd_dir, "b", 2 * MB)
        assert not second.over() and second.peak_bytes == 2 * MB
        _spill(fd_dir, "c", 4096)
        assert not first.over() and first.peak_bytes == 2 * MB + 4096
    assert first.stopped is None and second.stopped is None


def test_past_the_process_total_only_a_query_holding_temp_files_is_stopped(fd_dir):
    """Stopping a query that holds none would free nothing: it answers while the spiller stops."""
    ledger = TempLedger(fd_dir)
    caps = TempCaps(query_bytes=100 * MB, total_bytes=3 * MB)
    with ledger.meter(caps) as spiller, ledger.meter(caps) as reader:
        _spill(fd_dir, "a", 2 * MB)
        assert not spiller.over()
        _spill(fd_dir, "b", 2 * MB)
        assert spiller.over() and spiller.stopped.cap == "total" and spiller.stopped.total_bytes == 4 * MB
        assert not reader.over() and reader.stopped is None
