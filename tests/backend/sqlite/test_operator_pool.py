"""Operator sessions reuse their connections (each HTTP request reads the tenant mapping through one),
and a connection goes back with nothing of its last user left open."""

from __future__ import annotations

import pytest


def test_an_operator_session_reuses_the_connection_the_last_one_gave_back(backend):
    with backend.operator_session() as first:
        conn = first._conn
    with backend.operator_session() as second:
        assert second._conn is conn


def test_an_operator_connection_goes_back_rolled_back(backend):
    with pytest.raises(RuntimeError, match="boom"):
        with backend.operator_session() as session:
            session._conn.execute("BEGIN IMMEDIATE")
            session._conn.execute("CREATE TABLE scratch_left_open (x)")
            raise RuntimeError("boom")
    with backend.operator_session() as session:
        assert not session._conn.in_transaction
        names = [r[0] for r in session._conn.execute("SELECT name FROM sqlite_master WHERE name = 'scratch_left_open'")]
        assert names == []


def test_closing_the_backend_closes_the_idle_operator_connections(sqlite_path):
    import sqlite3

    from backend_helpers import open_sqlite

    backend = open_sqlite(sqlite_path)
    with backend.operator_session() as session:
        conn = session._conn
    backend.close()
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        conn.execute("SELECT 1")


def test_every_pooled_connection_bounds_its_page_cache(backend):
    """Walled and operator connections (one opener) and execute_query's alike: an idle connection keeps
    its cache's memory."""
    from memgate.manager.backend.sqlite.pool import PAGE_CACHE_KIB

    assert PAGE_CACHE_KIB == 512
    for conn in (backend._connect(), backend._queries._connect()):
        try:
            assert conn.execute("PRAGMA cache_size").fetchone()[0] == -512
        finally:
            conn.close()
    with backend.operator_session() as session:
        assert session._conn.execute("PRAGMA cache_size").fetchone()[0] == -512
