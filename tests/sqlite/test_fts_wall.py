"""The SQLite lexical index under the wall: FTS5 reached only through the tenant view."""

from __future__ import annotations

import sqlite3

import pytest
from kb_helpers import ACME, GLOBEX, add_doc, hashing_manager

from memgate.manager.errors import AccessDenied


@pytest.fixture
def kb(backend):
    return hashing_manager(backend)


def test_the_fts_view_under_a_tenant_shows_only_that_tenants_rows(kb, backend):
    add_doc(kb, GLOBEX, "g", "zebra")
    add_doc(kb, ACME, "a", "zebra")
    with backend.session(ACME) as s:
        rows = s.raw("SELECT m.seq, c.tenant_id FROM kb_chunk_match m JOIN knowledge_base_chunk c ON c.seq = m.seq"
                     " WHERE m.fts MATCH 'zebra'")
        assert [r["tenant_id"] for r in rows] == ["acme"]
        unjoined = s.raw("SELECT seq FROM kb_chunk_match WHERE fts MATCH 'zebra'")
        assert len(unjoined) == 1
    with backend.session(GLOBEX) as s:
        assert len(s.raw("SELECT seq FROM kb_chunk_match WHERE fts MATCH 'zebra'")) == 1


@pytest.mark.parametrize("sql", [
    "SELECT * FROM base_kb_chunk_fts WHERE base_kb_chunk_fts MATCH 'zebra'",
    "SELECT * FROM base_kb_chunk_fts_content",
    "SELECT * FROM base_kb_chunk_fts_data",
    "SELECT * FROM base_kb_chunk_fts('zebra')",
    "INSERT INTO base_kb_chunk_fts (rowid, content, tenant_id) VALUES (999, 'x', 'acme')",
    "DELETE FROM base_kb_chunk_fts",
])
def test_walled_sql_cannot_name_the_fts_table_or_its_shadow_tables(kb, backend, sql):
    add_doc(kb, GLOBEX, "g", "zebra")
    with backend.session(ACME) as s, pytest.raises(AccessDenied, match="^statement refused by the tenant wall: it names a base table$"):
        s.raw(sql)


def test_the_authorizer_alone_refuses_the_fts_table_outside_the_view(kb, backend):
    add_doc(kb, GLOBEX, "g", "zebra")
    pooled = backend._checkout()
    try:
        pooled.context.tenant = "acme"
        with pytest.raises(sqlite3.DatabaseError, match="prohibited|not authorized"):
            pooled.conn.execute("SELECT tenant_id FROM base_kb_chunk_fts WHERE base_kb_chunk_fts MATCH 'zebra'")
    finally:
        backend._pool.give(pooled)


def test_the_lexical_index_follows_chunk_deletes_and_edits(kb, backend):
    add_doc(kb, ACME, "a", "zebra crossing")
    with backend.session(ACME) as s:
        s.raw("UPDATE knowledge_base_chunk SET content = 'giraffe crossing'")
        assert s.raw("SELECT count(*) AS n FROM kb_chunk_match WHERE fts MATCH 'zebra'") == [{"n": 0}]
        assert s.raw("SELECT count(*) AS n FROM kb_chunk_match WHERE fts MATCH 'giraffe'") == [{"n": 1}]
        s.raw("DELETE FROM knowledge_base_chunk")
        assert s.raw("SELECT count(*) AS n FROM kb_chunk_match WHERE fts MATCH 'giraffe'") == [{"n": 0}]
    with backend.unwalled_connection() as conn:
        assert conn.execute("SELECT count(*) FROM base_kb_chunk_fts").fetchone()[0] == 0


