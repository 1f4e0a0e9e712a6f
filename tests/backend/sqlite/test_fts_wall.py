"""The SQLite lexical indexes under the wall: each tenant's FTS5 table reached only through its view."""

from __future__ import annotations

import sqlite3

import pytest
from kb_helpers import ACME, GLOBEX, add_doc, hashing_manager

from memgate.manager.errors import AccessDenied


@pytest.fixture
def kb(backend):
    return hashing_manager(backend)


def _slot(backend, tenant: str) -> int:
    with backend.unwalled_connection() as conn:
        return conn.execute("SELECT slot FROM base_kb_lexical_index WHERE tenant_id = ?", (tenant,)).fetchone()[0]


def test_the_fts_view_under_a_tenant_shows_only_that_tenants_rows(kb, backend):
    add_doc(kb, GLOBEX, "g", "zebra")
    add_doc(kb, ACME, "a", "zebra")
    with backend.session(ACME) as s:
        rows = s.raw(
            "SELECT m.seq, c.tenant_id FROM kb_chunk_match m JOIN knowledge_base_chunk c ON c.seq = m.seq"
            " WHERE m.fts MATCH 'zebra'"
        )
        assert [r["tenant_id"] for r in rows] == ["acme"]
        unjoined = s.raw("SELECT seq FROM kb_chunk_match WHERE fts MATCH 'zebra'")
        assert len(unjoined) == 1
    with backend.session(GLOBEX) as s:
        assert len(s.raw("SELECT seq FROM kb_chunk_match WHERE fts MATCH 'zebra'")) == 1


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM {fts} WHERE {fts} MATCH 'zebra'",
        "SELECT * FROM {fts}_docsize",
        "SELECT * FROM {fts}_data",
        "SELECT * FROM {fts}('zebra')",
        "INSERT INTO {fts} (rowid, content) VALUES (999, 'x')",
        "DELETE FROM {fts}",
        "SELECT * FROM base_kb_lexical_index",
        "SELECT * FROM base_kb_generation",
    ],
)
def test_walled_sql_cannot_name_an_fts_table_or_its_shadow_tables(kb, backend, sql):
    add_doc(kb, GLOBEX, "g", "zebra")
    fts = f"base_kb_fts_{_slot(backend, 'globex')}"
    with (
        backend.session(ACME) as s,
        pytest.raises(AccessDenied, match="^statement refused by the tenant wall: it names a base table$"),
    ):
        s.raw(sql.format(fts=fts))


def test_the_authorizer_alone_refuses_an_fts_table_outside_its_view(kb, backend):
    add_doc(kb, GLOBEX, "g", "zebra")
    fts = f"base_kb_fts_{_slot(backend, 'globex')}"
    for tenant in ("acme", "globex"):
        pooled = backend._checkout(tenant)
        try:
            pooled.context.tenant = tenant
            with pytest.raises(sqlite3.DatabaseError, match="prohibited|not authorized"):
                pooled.conn.execute(f"SELECT rowid, content FROM {fts} WHERE {fts} MATCH 'zebra'")
        finally:
            backend._pool.give(pooled)


def test_another_tenants_match_view_shows_nothing_even_when_named(kb, backend):
    add_doc(kb, GLOBEX, "g", "zebra")
    with backend.session(ACME) as s:
        assert s.raw(f"SELECT seq FROM kb_chunk_match_{_slot(backend, 'globex')} WHERE fts MATCH 'zebra'") == []


def test_each_tenant_has_its_own_index_holding_only_its_rows(kb, backend):
    add_doc(kb, GLOBEX, "g", "zebra zebra")
    add_doc(kb, ACME, "a", "zebra")
    with backend.unwalled_connection() as conn:
        for tenant in ("acme", "globex"):
            fts = f"base_kb_fts_{_slot(backend, tenant)}"
            indexed = conn.execute(
                f"SELECT c.tenant_id FROM {fts}_docsize d JOIN base_knowledge_base_chunk c ON c.seq = d.id"
            ).fetchall()
            assert [tuple(r) for r in indexed] == [(tenant,)]


def test_the_lexical_index_follows_chunk_deletes_and_edits(kb, backend):
    add_doc(kb, ACME, "a", "zebra crossing")
    with backend.session(ACME) as s:
        s.raw("UPDATE knowledge_base_chunk SET content = 'giraffe crossing'")
        assert s.raw("SELECT count(*) AS n FROM kb_chunk_match WHERE fts MATCH 'zebra'") == [{"n": 0}]
        assert s.raw("SELECT count(*) AS n FROM kb_chunk_match WHERE fts MATCH 'giraffe'") == [{"n": 1}]
        s.raw("DELETE FROM knowledge_base_chunk")
        assert s.raw("SELECT count(*) AS n FROM kb_chunk_match WHERE fts MATCH 'giraffe'") == [{"n": 0}]
    with backend.unwalled_connection() as conn:
        assert conn.execute(f"SELECT count(*) FROM base_kb_fts_{_slot(backend, 'acme')}_docsize").fetchone()[0] == 0


def test_a_chunk_of_a_tenant_without_a_lexical_index_is_refused(kb, backend):
    from memgate.manager.errors import BackendUnavailable

    add_doc(kb, ACME, "a", "zebra")
    with backend.unwalled_connection() as conn:
        conn.execute("DELETE FROM base_kb_lexical_index WHERE tenant_id = 'acme'")
    with backend.session(ACME) as s:  # this connection still points at acme's old slot
        with pytest.raises(BackendUnavailable, match="no lexical index"), s.transaction():
            s.insert(
                "knowledge_base_chunk",
                {
                    "id": "chk_unindexed",
                    "tenant_id": "acme",
                    "document_id": "d",
                    "position": 0,
                    "content": "unindexed zebra",
                },
            )
        assert s.raw("SELECT count(*) AS n FROM knowledge_base_chunk WHERE id = 'chk_unindexed'") == [{"n": 0}]
