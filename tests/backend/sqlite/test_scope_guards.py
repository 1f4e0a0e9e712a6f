"""The SQLite scope wall itself: generated filters and guards on every table, the FTS view, the query connection."""

from __future__ import annotations

import sqlite3

import pytest

from memgate.manager import ACME, Identity, now_iso
from memgate.manager.backend.sqlite import schema
from memgate.manager.backend.sqlite.query import ReadonlyQueries

BOB = Identity(tenant="acme", user="bob", agent="research-assistant")


def test_every_base_table_has_scope_guards_and_its_view_filters_scope(backend):
    with backend.unwalled_connection() as conn:
        objects = {name: sql for name, sql in conn.execute("SELECT name, sql FROM sqlite_master")}
        for base in schema.base_tables(conn):
            table = base[len("base_") :]
            for action in ("insert", "update", "delete"):
                assert f"{base}__scope_{action}" in objects, base
            view = objects[table]
            if base == "base_memory_file":
                assert "FROM base_memory_store o WHERE o.id = base_memory_file.store_id" in view
            columns = {r[1] for r in conn.execute(f"PRAGMA table_info({base})")}
            # a conversation and its recall rows have no thread_id: they are its user's and agent's, whatever thread names it
            assert "thread_id" in columns or base in (
                "base_conversation",
                "base_conversation_recall",
                "base_memory_file",
            ), base
            for column, fn in (("user_id", "app_user()"), ("agent_id", "app_agent()"), ("thread_id", "app_thread()")):
                if column in columns:
                    assert f"{column} = {fn}" in view, (table, column)


def test_the_lexical_index_view_shows_a_user_only_their_chunks(manager, backend, two_tenants):
    with backend.session(ACME) as s:
        s.insert(
            "knowledge_base_chunk",
            {
                "id": "chk_jane",
                "tenant_id": "acme",
                "user_id": "jane",
                "document_id": "d",
                "position": 0,
                "content": "zebracorn plans",
            },
        )
    match = "SELECT seq FROM kb_chunk_match WHERE fts MATCH 'zebracorn'"
    with backend.session(ACME) as s:
        assert len(s.raw(match)) == 1
    with backend.session(BOB) as s:
        assert s.raw(match) == []


def test_the_query_connection_never_reads_the_walled_main_views_directly(backend, two_tenants):
    queries = ReadonlyQueries(backend.path)
    try:
        with queries.walled_connection(ACME) as conn:
            current = conn.execute("SELECT content FROM entity_memory WHERE predicate = 'beir_ndcg10'").fetchall()
            assert current == [("0.78",)]
            for sql in (
                "SELECT content FROM main.entity_memory",
                "SELECT * FROM main.conversation_memory",
                "SELECT * FROM temp.sqlite_master",
                "SELECT * FROM main.mcp_call_log",
            ):
                with pytest.raises(sqlite3.DatabaseError, match="prohibited|not authorized"):
                    conn.execute(sql).fetchall()
    finally:
        queries.close()


def test_the_reviewed_views_follow_a_schema_change(backend, two_tenants):
    assert backend.query_catalog()["entity_memory"][-1][0] == "created_at"
    with backend.unwalled_connection() as conn:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ALTER TABLE base_entity_memory ADD COLUMN reviewed_by TEXT")
        schema.rebuild_tenant_wall(conn)
        conn.execute("COMMIT")
    catalog = backend.query_catalog()
    assert catalog["entity_memory"][-1] == ("reviewed_by", "TEXT")
    assert [c for c, _ in catalog["entity_memory_history"][-2:]] == ["reviewed_by", "status"]
    rows = backend.run_readonly_query(ACME, "SELECT reviewed_by, status FROM entity_memory_history", 5, 5.0, now_iso())
    assert rows.columns == ["reviewed_by", "status"] and len(rows.rows) == 3
