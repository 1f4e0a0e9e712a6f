"""execute_query's connection: read-only twice over (`PRAGMA query_only`, `mode=ro`), and
app_tenant() & co. callable only from inside a reviewed view.

Each read-only layer is tested with the walls in front of it taken away (the authorizer,
and for mode=ro also query_only), so removing either one alone is noticed.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager

import pytest
from query_helpers import base_checksum

from memgate.manager import QueryRejected, now_iso
from memgate.manager.backend.sqlite.query import ReadonlyQueries
from memgate.manager.demo.dataset import ACME

READONLY = "^attempt to write a readonly database$"


@contextmanager
def bare_query_connection(backend):
    """A pooled execute_query connection with its authorizer removed, put back afterwards."""
    queries = ReadonlyQueries(backend.path)
    try:
        with queries.walled_connection(ACME) as conn:
            conn.set_authorizer(None)
            yield conn
    finally:
        queries.close()


def test_query_only_refuses_even_a_temp_table_which_mode_ro_allows(backend, two_tenants):
    before = base_checksum(backend)
    with bare_query_connection(backend) as conn, pytest.raises(sqlite3.OperationalError, match=READONLY):
        conn.execute("CREATE TEMP TABLE scratch (a)")
    assert base_checksum(backend) == before


def test_mode_ro_refuses_a_write_with_query_only_turned_off(backend, two_tenants):
    before = base_checksum(backend)
    with bare_query_connection(backend) as conn:
        conn.execute("PRAGMA query_only = 0")
        with pytest.raises(sqlite3.OperationalError, match=READONLY):
            conn.execute("DELETE FROM base_entity_memory WHERE tenant_id = 'acme'")
    assert base_checksum(backend) == before


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT app_tenant()",
        "SELECT app_user() FROM entity_memory",
        "SELECT id FROM entity_memory WHERE app_agent() IS NOT NULL",
    ],
)
def test_the_context_functions_run_only_inside_a_reviewed_view(backend, two_tenants, sql):
    queries = ReadonlyQueries(backend.path)
    try:
        with pytest.raises(QueryRejected, match=r"^query refused \(rule wall\): "):
            queries.run(ACME, sql, 5, 1.0, now_iso())
    finally:
        queries.close()
