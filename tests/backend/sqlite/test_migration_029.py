"""Migration 029 on a file from before it: each ok call's cited ids become mcp_call_cited rows in its scope."""

from __future__ import annotations

from backend_helpers import open_sqlite, operator_rows, sqlite_file_with

from memgate.manager import ACME, Identity

T0 = "2026-08-01T10:00:00.000Z"
JANE = Identity(tenant="acme", user="jane", agent="helper", thread="t1", principal="test:jane")
GLOBEX_BOB = Identity(tenant="globex", user="bob", agent="helper", principal="test:bob")


def _database_before_029(path) -> None:
    """Calls as memgate logged them before 029: ok ones citing ids (two, none, no list at all), a denied
    one that named an id, and an ok one whose cited_ids is not JSON (never written, but not fatal)."""
    conn, context = sqlite_file_with(path, lambda version: version < 29)
    for who, call_id, status, cited in (
        (JANE, "call_j1", "ok", '["kbc_a", "ent_b"]'),
        (JANE, "call_j2", "ok", "[]"),
        (JANE, "call_j3", "ok", None),
        (JANE, "call_j4", "denied", '["kbc_c"]'),
        (JANE, "call_j5", "ok", "not json"),
        (GLOBEX_BOB, "call_b1", "ok", '["kbc_a"]'),
    ):
        context.bind(who)
        conn.execute(
            "INSERT INTO mcp_call_log (call_id, tenant_id, called_at, principal, user_id, agent_id, thread_id,"
            " tool_name, status, cited_ids) VALUES (?, ?, ?, ?, ?, ?, ?, 'search_memory', ?, ?)",
            (call_id, who.tenant, T0, who.principal, who.user, who.agent, who.thread, status, cited),
        )
    conn.close()


def test_each_ok_calls_cited_ids_become_rows_in_its_scope(sqlite_path):
    _database_before_029(sqlite_path)
    backend = open_sqlite(sqlite_path)
    try:
        backend.migrate()
        backend.check_schema()
        rows = sorted(
            (r["id"], r["tenant_id"], r["user_id"], r["agent_id"], r["thread_id"], r["call_id"], r["cited_id"])
            for r in operator_rows(backend, "mcp_call_cited")
        )
        assert rows == [
            ("call_b1:0", "globex", "bob", "helper", None, "call_b1", "kbc_a"),
            ("call_j1:0", "acme", "jane", "helper", "t1", "call_j1", "kbc_a"),
            ("call_j1:1", "acme", "jane", "helper", "t1", "call_j1", "ent_b"),
        ]
        # the lookup reads them through the wall: jane's thread sees her call, another tenant's does not count
        with backend.session(JANE) as s:
            assert s.fetch_one("calllog_cited", id="ent_b") == {"call_id": "call_j1"}
            assert s.fetch_one("calllog_cited", id="kbc_c") is None  # cited only by a denied call
        with backend.session(ACME) as s:
            assert s.fetch_one("calllog_cited", id="kbc_a") is None  # jane's call is not the demo user's
    finally:
        backend.close()
