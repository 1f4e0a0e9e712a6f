"""The base tables' tenant guard triggers: the last wall, tested without the views in front of them.

A connection with the context functions but no authorizer reaches base_ tables directly;
whatever tenant is bound (or none), a row of another tenant can be neither written,
changed, moved to another tenant nor deleted, and the database is left as it was.
The rows used are tenant-wide toolbox rows (no user, agent or thread), which may be
updated and deleted, so neither the scope triggers nor an immutability trigger stand
in for the tenant guard.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from backend_helpers import operator_rows, table_digest

from memgate.manager import ACME
from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions

REFUSED = "^memgate: write refused, tenant_id differs from the bound tenant$"
WRITES = {
    "insert": "INSERT INTO base_toolbox_memory (id, tenant_id, tool_name, tool_schema, usage_notes, tool_handler)"
    " VALUES ('tool_x', 'globex', 'planted', '{}', 'x', 'lookup_entity')",
    "update": "UPDATE base_toolbox_memory SET usage_notes = 'pwned' WHERE id = :globex",
    "delete": "DELETE FROM base_toolbox_memory WHERE id = :globex",
    "move_own_row_out": "UPDATE base_toolbox_memory SET tenant_id = 'globex' WHERE id = :acme",
    # the new row would be the bound tenant's: only the old row's tenant tells it is globex's
    "take_over_by_renaming_tenant": "UPDATE base_toolbox_memory SET tenant_id = 'acme' WHERE id = :globex",
}


@pytest.fixture
def rows(backend, two_tenants):
    """The tenant-wide lookup_entity row of each tenant: {tenant: row id}."""
    found = operator_rows(
        backend,
        "toolbox_memory",
        "WHERE tool_name = 'lookup_entity' AND user_id IS NULL AND agent_id IS NULL AND thread_id IS NULL",
    )
    return {r["tenant_id"]: r["id"] for r in found}


def _bound(path, identity):
    conn = sqlite3.connect(path, isolation_level=None)
    install_context_functions(
        conn,
        ConnectionContext(
            tenant=identity and identity.tenant, user=identity and identity.user, agent=identity and identity.agent
        ),
    )
    return closing(conn)


@pytest.mark.parametrize("identity", [ACME, None], ids=["acme-bound", "none-bound"])
@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_base_table_refuses_any_write_touching_another_tenants_row(backend, sqlite_path, rows, identity, write):
    before = table_digest(backend)
    with _bound(sqlite_path, identity) as conn, pytest.raises(sqlite3.IntegrityError, match=REFUSED):
        conn.execute(WRITES[write], rows)
    assert table_digest(backend) == before


def test_the_bound_tenant_may_still_write_its_own_rows(backend, sqlite_path, rows):
    with _bound(sqlite_path, ACME) as conn:
        assert conn.execute("UPDATE base_toolbox_memory SET usage_notes = 'ok' WHERE id = :acme", rows).rowcount == 1
        assert conn.execute("DELETE FROM base_toolbox_memory WHERE id = :acme", rows).rowcount == 1
    assert rows["acme"] not in {r["id"] for r in operator_rows(backend, "toolbox_memory")}
