"""The base tables' own guard triggers: the last wall, tested without the views in front of them.

A connection with the context functions but no authorizer reaches base_ tables directly;
whatever tenant is bound (or none), a row of another tenant can be neither written,
changed, moved to another tenant nor deleted, and the database is left as it was.
memory_file is the table used: its rows may be updated and deleted, so no other trigger
stands in for the guard.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from backend_helpers import operator_rows, table_digest
from memory_helpers import ACME_AGENT, GLOBEX_AGENT, seed

from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions

REFUSED = "^memgate: write refused, tenant_id differs from the bound tenant$"
WRITES = {
    "insert": "INSERT INTO base_memory_file (id, tenant_id, store_id, path, content, size_chars, size_bytes,"
              " version, created_by, created_at) SELECT 'mf_x', 'globex', store_id, '/memories/x.md', 'x', 1, 1,"
              " 1, 'x', created_at FROM base_memory_file WHERE id = :globex",
    "update": "UPDATE base_memory_file SET content = 'pwned' WHERE id = :globex",
    "delete": "DELETE FROM base_memory_file WHERE id = :globex",
    "move_own_row_out": "UPDATE base_memory_file SET tenant_id = 'globex' WHERE id = :acme",
}


@pytest.fixture
def files(manager):
    """One memory file per tenant: {tenant: file id}."""
    for agent in (ACME_AGENT, GLOBEX_AGENT):
        seed(manager, agent)
        assert not manager.memory(agent, "create", path="/memories/a.md", file_text=agent.tenant).is_error
    return {r["tenant_id"]: r["id"] for r in operator_rows(manager.backend, "memory_file")}


def _bound(path, tenant):
    conn = sqlite3.connect(path, isolation_level=None)
    install_context_functions(conn, ConnectionContext(tenant=tenant))
    return closing(conn)


@pytest.mark.parametrize("tenant", ["acme", None], ids=["acme-bound", "none-bound"])
@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_base_table_refuses_any_write_touching_another_tenants_row(backend, sqlite_path, files, tenant, write):
    before = table_digest(backend)
    with _bound(sqlite_path, tenant) as conn, pytest.raises(sqlite3.IntegrityError, match=REFUSED):
        conn.execute(WRITES[write], files)
    assert table_digest(backend) == before


def test_the_bound_tenant_may_still_write_its_own_rows(backend, sqlite_path, files):
    with _bound(sqlite_path, "acme") as conn:
        assert conn.execute("UPDATE base_memory_file SET content = 'ok' WHERE id = :acme", files).rowcount == 1
        assert conn.execute("DELETE FROM base_memory_file WHERE id = :acme", files).rowcount == 1
    assert [r["tenant_id"] for r in operator_rows(backend, "memory_file")] == ["globex"]
