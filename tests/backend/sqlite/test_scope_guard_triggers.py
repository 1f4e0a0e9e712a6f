"""The base tables' scope guard triggers: inside one tenant, a user's row is judged on its old scope too.

The reviewed views stop these writes first; here a connection with the context functions but
no authorizer reaches the base table itself, so only the BEFORE UPDATE and BEFORE DELETE
triggers stand between jane and bob's row. Setting bob's row's user_id to NULL would make it
a row jane may write (shared), so the update guard must judge the old row as well as the new.
The row is a toolbox row, which may be updated and deleted, so no immutability trigger stands
in for the scope guard.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from backend_helpers import operator_rows, table_digest

from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions

REFUSED = "^memgate: write refused, the row is scoped to another user, agent or thread$"
BOBS_ROW = (
    "INSERT INTO base_toolbox_memory (id, tenant_id, user_id, tool_name, tool_schema, usage_notes, tool_handler)"
    " VALUES ('tool_bob', 'acme', 'bob', 'bobs_lookup', '{}', 'x', 'lookup_entity')"
)
WRITES = {
    "take_over_by_clearing_user": "UPDATE base_toolbox_memory SET user_id = NULL WHERE id = 'tool_bob'",
    "take_over_by_naming_self": "UPDATE base_toolbox_memory SET user_id = 'jane' WHERE id = 'tool_bob'",
    "change_in_place": "UPDATE base_toolbox_memory SET usage_notes = 'pwned' WHERE id = 'tool_bob'",
    "delete": "DELETE FROM base_toolbox_memory WHERE id = 'tool_bob'",
}


def _bound(path, user):
    conn = sqlite3.connect(path, isolation_level=None)
    install_context_functions(conn, ConnectionContext(tenant="acme", user=user, agent="research-assistant"))
    return closing(conn)


@pytest.fixture
def bobs_row(backend, sqlite_path, two_tenants):
    with _bound(sqlite_path, "bob") as conn:
        conn.execute(BOBS_ROW)
    [row] = operator_rows(backend, "toolbox_memory", "WHERE id = 'tool_bob'")
    assert row["user_id"] == "bob"
    return row


@pytest.mark.parametrize("write", sorted(WRITES))
def test_jane_cannot_write_bobs_row_on_the_base_table(backend, sqlite_path, bobs_row, write):
    before = table_digest(backend)
    with _bound(sqlite_path, "jane") as conn, pytest.raises(sqlite3.IntegrityError, match=REFUSED):
        conn.execute(WRITES[write])
    assert table_digest(backend) == before
    assert operator_rows(backend, "toolbox_memory", "WHERE id = 'tool_bob'") == [bobs_row]


def test_bob_may_still_change_and_delete_his_own_row(backend, sqlite_path, bobs_row):
    with _bound(sqlite_path, "bob") as conn:
        assert conn.execute("UPDATE base_toolbox_memory SET usage_notes = 'ok' WHERE id = 'tool_bob'").rowcount == 1
        assert conn.execute("DELETE FROM base_toolbox_memory WHERE id = 'tool_bob'").rowcount == 1
    assert operator_rows(backend, "toolbox_memory", "WHERE id = 'tool_bob'") == []
