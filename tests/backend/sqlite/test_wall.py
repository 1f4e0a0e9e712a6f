"""The SQLite tenant wall itself: the base-name check, the authorizer alone, unbound and pooled connections."""

from __future__ import annotations

import sqlite3

import pytest

from memgate.manager.backend.sqlite import schema as sqlite_schema
from memgate.manager.errors import AccessDenied
from memgate.manager.identity import Identity


def _logical_tables(backend) -> list[str]:
    with backend.unwalled_connection() as conn:
        return [b[len("base_") :] for b in sqlite_schema.base_tables(conn)]


def _base_counts(backend) -> dict[str, list[tuple]]:
    with backend.unwalled_connection() as conn:
        return {
            t: conn.execute(f"SELECT tenant_id, count(*) FROM base_{t} GROUP BY tenant_id ORDER BY 1").fetchall()
            for t in _logical_tables(backend)
        }


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM base_entity_memory",
        "SELECT count(*) FROM base_mcp_call_log",
        "SELECT e.content FROM entity_memory e JOIN base_entity_memory b ON b.id = e.id",
        "SELECT * FROM entity_memory WHERE id IN (SELECT id FROM base_entity_memory)",
        "WITH x AS (SELECT * FROM base_guideline_memory) SELECT * FROM x",
        "WITH entity_memory AS (SELECT * FROM base_entity_memory) SELECT * FROM entity_memory",
        'SELECT * FROM "BASE_ENTITY_MEMORY"',
        "SELECT * FROM [base_entity_memory]",
        "INSERT INTO base_entity_memory (id, tenant_id, subject, predicate, content) VALUES ('x', 'acme', 's', 'p', 'c')",
        "UPDATE base_entity_memory SET valid_until = 'x'",
        "DELETE FROM base_entity_memory",
        "CREATE VIEW leak AS SELECT * FROM base_entity_memory",
        "CREATE TEMP VIEW leak AS SELECT * FROM base_entity_memory",
        "DROP VIEW entity_memory",
        "PRAGMA query_only = 0",
        "ATTACH DATABASE ':memory:' AS other",
    ],
)
def test_statements_naming_base_tables_or_changing_schema_are_refused(backend, two_tenants, sql):
    acme, _ = two_tenants
    before = _base_counts(backend)
    with backend.session(acme) as s, pytest.raises(AccessDenied, match="^statement refused by the tenant wall"):
        s.raw(sql)
    assert _base_counts(backend) == before


def test_the_authorizer_alone_refuses_base_tables_read_outside_schema_views(backend, two_tenants):
    # The second wall on its own: skip the statement text check and go straight to SQLite.
    # (A CTE named exactly like a real view is reported by SQLite as that view, so only
    # the text check catches that one: see walled_authorizer.)
    acme, _ = two_tenants
    with backend.session(acme) as s:
        conn = s._conn
        for sql in (
            "SELECT * FROM base_entity_memory",
            "WITH x AS (SELECT * FROM base_entity_memory) SELECT * FROM x",
            "SELECT * FROM (SELECT * FROM base_entity_memory)",
        ):
            with pytest.raises(sqlite3.DatabaseError, match="prohibited"):
                conn.execute(sql)


def test_a_connection_with_no_context_sees_nothing_and_writes_nothing(backend, two_tenants):
    with backend.unwalled_connection() as conn:
        for table in _logical_tables(backend):
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
        with pytest.raises(sqlite3.IntegrityError, match="tenant_id differs"):
            conn.execute(
                "INSERT INTO entity_memory (id, tenant_id, subject, predicate, content)"
                " VALUES ('x', 'acme', 's', 'p', 'c')"
            )


def test_context_is_cleared_when_a_connection_returns_to_the_pool(backend, two_tenants):
    acme, _globex = two_tenants
    with backend.session(acme) as s:
        assert s.raw("SELECT app_tenant() AS t") == [{"t": "acme"}]
    with backend.session(Identity(tenant="initech")) as s:
        assert s.raw("SELECT app_tenant() AS t, app_user() AS u") == [{"t": "initech", "u": None}]
        assert s.raw("SELECT count(*) AS n FROM entity_memory") == [{"n": 0}]
    pooled = backend._pool.idle[-1]
    assert (pooled.context.tenant, pooled.context.user) == (None, None)


def test_the_operators_log_view_reads_base_rows_so_a_walled_connection_may_not_read_it(backend, two_tenants):
    acme, globex = two_tenants
    from memgate.manager.registry.calllog import CallRecord, write

    for who in (acme, globex):
        with backend.session(who) as s:
            write(
                s,
                who,
                CallRecord(
                    call_id=f"c-{who.tenant}",
                    called_at="2026-09-01T00:00:00.000Z",
                    tool_name="lookup_entity",
                    status="ok",
                ),
                100,
            )
    with backend.session(acme) as s, pytest.raises(AccessDenied, match="tenant wall"):
        s.raw("SELECT id FROM dbtools_mcp_log")
    with sqlite3.connect(backend.path) as plain:  # the sqlite3 shell: no memgate function needed
        assert sorted(r[0] for r in plain.execute("SELECT tenant_id FROM dbtools_mcp_log")) == ["acme", "globex"]


def test_a_statement_the_wall_let_through_is_not_checked_again_on_the_next_checkout(backend, two_tenants):
    # The wall is installed once per connection: re-installing it on each checkout expired
    # every prepared statement, so each session parsed and authorized its statements again.
    acme, _ = two_tenants
    with backend.session(acme) as s:
        counted = s.raw("SELECT count(*) AS n FROM entity_memory")
    pooled = backend._pool.idle[-1]
    checks = []
    wall = pooled.authorizer
    pooled.authorizer = lambda *a: checks.append(a) or wall(*a)
    with backend.session(acme) as s:
        assert backend._pool.idle == [] and s._conn is pooled.conn
        assert s.raw("SELECT count(*) AS n FROM entity_memory") == counted
    assert checks == []


def test_statements_the_pool_ran_outside_the_wall_are_checked_again_before_they_run_walled(backend, two_tenants):
    # Rebuilding the query wall reads the schema with the authorizer lifted; those prepared
    # statements stay in the connection's cache by their text, so the same text from a walled
    # caller must be authorized afresh (installing the wall again expires them), and so must
    # the pool's own schema-version read.
    from memgate.manager.backend.sql_files import load_sql
    from memgate.manager.backend.sqlite.query import ReadonlyQueries

    acme, _ = two_tenants
    queries = ReadonlyQueries(backend.path)
    try:
        with queries.walled_connection(acme):
            pass  # the wall is built and installed
        with queries.walled_connection(acme) as conn, pytest.raises(sqlite3.DatabaseError, match="not authorized"):
            conn.execute("PRAGMA schema_version")
        with backend.session(acme):
            pass
        with backend.session(acme) as s, pytest.raises(AccessDenied, match="tenant wall"):
            s.raw("PRAGMA schema_version")
        with backend.unwalled_connection() as conn:  # a schema change: the next checkout rebuilds it
            conn.execute("CREATE TABLE scratch (a)")
        with queries.walled_connection(acme) as conn:
            for sql in (
                load_sql("sqlite", "catalog_known_names"),
                load_sql("sqlite", "query_catalog"),
                "SELECT name FROM sqlite_temp_master WHERE type = 'view'",
            ):
                with pytest.raises(sqlite3.DatabaseError, match="not authorized|prohibited"):
                    conn.execute(sql)
    finally:
        queries.close()
