"""A session's statements: atomic transactions, writes visible to the next session, pages that say more exists."""

from __future__ import annotations

from dataclasses import replace

import pytest
from backend_helpers import table_digest

from memgate.manager import ACME, AccessDenied, Conflict, QueryTimeout

T = "2026-09-01T00:00:00.000Z"


def test_a_failed_transaction_writes_nothing_even_after_a_statement_succeeded(backend, two_tenants):
    before = table_digest(backend)
    with backend.session(ACME) as s, pytest.raises(Conflict, match="another writer"), s.transaction():
        s.execute("entity_close_version", id="ent_acme_helios_v2", now=T)
        # the next version already exists: the insert fails, and the close above with it
        s.insert(
            "entity_memory",
            {
                "id": "ent_acme_helios_v2b",
                "tenant_id": "acme",
                "subject": "model:helios-rag",
                "predicate": "beir_ndcg10",
                "content": "0.5",
                "version": 2,
            },
        )
    assert table_digest(backend) == before


def test_a_refused_write_inside_a_transaction_rolls_back_the_whole_transaction(backend, two_tenants):
    before = table_digest(backend)
    with backend.session(ACME) as s, pytest.raises(AccessDenied, match="belongs to another tenant"):
        with s.transaction():
            s.insert("summarization_memory", {"id": "sum_new", "tenant_id": "acme", "title": "t", "content": "c"})
            s.insert("summarization_memory", {"id": "sum_forged", "tenant_id": "globex", "title": "t", "content": "c"})
    assert table_digest(backend) == before


def test_a_write_outside_a_transaction_is_visible_to_the_next_session(backend, two_tenants):
    with backend.session(ACME) as s:
        s.insert("summarization_memory", {"id": "sum_seen", "tenant_id": "acme", "title": "t", "content": "c"})
    with backend.session(ACME) as s:
        assert s.raw("SELECT title FROM summarization_memory WHERE id = 'sum_seen'") == [{"title": "t"}]


def test_an_insert_that_names_no_tenant_writes_for_the_bound_tenant(backend, two_tenants):
    with backend.session(ACME) as s:
        s.insert("summarization_memory", {"id": "sum_implicit", "title": "t", "content": "c"})
        assert s.raw("SELECT tenant_id FROM summarization_memory WHERE id = 'sum_implicit'") == [{"tenant_id": "acme"}]


@pytest.mark.parametrize("limit,more", [(1, True), (2, True), (3, False), (10, False)])
def test_fetch_page_returns_at_most_limit_rows_and_whether_more_exist(backend, two_tenants, limit, more):
    with backend.session(ACME) as s:
        every = s.fetch_all("entity_versions", subject="model:helios-rag", predicate=None)
        rows, has_more = s.fetch_page("entity_versions", limit, subject="model:helios-rag", predicate=None)
    assert len(every) == 3
    assert (rows, has_more) == (every[:limit], more)


def test_text_and_numbers_come_back_as_the_manager_wrote_them(backend, two_tenants):
    text = "ünïcödé ✓ 'quoted' " + "x" * 5000
    with backend.session(ACME) as s:
        s.insert(
            "summarization_memory",
            {
                "id": "sum_text",
                "tenant_id": "acme",
                "title": "t",
                "content": text,
                "source_versions_json": '[{"id": "a", "version": 2}]',
            },
        )
        [row] = s.raw("SELECT content, source_versions_json, version FROM summarization_memory WHERE id = 'sum_text'")
    assert row == {"content": text, "source_versions_json": '[{"id": "a", "version": 2}]', "version": 1}


def test_a_round_trip_past_the_call_timeout_ends_with_query_timeout_and_the_next_session_works(backend, two_tenants):
    """Oracle's sessions carry call_timeout from caps.query_timeout_s; SQLite has no round trip to bound."""
    if backend.dialect == "sqlite":
        pytest.skip("SQLite runs statements in-process: set_call_timeout bounds nothing there (by design)")
    backend.set_call_timeout(1)
    with backend.session(ACME) as s, pytest.raises(QueryTimeout, match="caps.query_timeout_s"):
        s.raw("BEGIN DBMS_SESSION.SLEEP(3); END;")
    with backend.session(ACME) as s:
        assert s.raw("SELECT count(*) AS n FROM entity_memory") == [{"n": 3}]


def test_each_session_names_its_call_in_the_database_and_leaves_no_identity_behind(backend, two_tenants):
    """Oracle: module, action and client identifier from the call; MEMGATE_CTX empty in the pool afterwards,
    also after a session whose body raised. SQLite's context holder is per connection and tested in tests/backend/sqlite."""
    if backend.dialect == "sqlite":
        pytest.skip("SQLite has no session attributes; its context holder is cleared on return (tests/backend/sqlite)")
    call = replace(ACME, tool="lookup_entity", call_id="call_0123456789")
    with backend.session(call) as s:
        [row] = s.raw(
            "SELECT SYS_CONTEXT('USERENV', 'MODULE') AS module, SYS_CONTEXT('USERENV', 'ACTION') AS action, "
            "SYS_CONTEXT('USERENV', 'CLIENT_IDENTIFIER') AS client, "
            "SYS_CONTEXT('MEMGATE_CTX', 'TENANT') AS tenant FROM dual"
        )
    assert row == {"module": "memgate", "action": "lookup_entity", "client": "call_0123456789", "tenant": "acme"}
    with pytest.raises(RuntimeError, match="the tool failed"), backend.session(call):
        raise RuntimeError("the tool failed")
    accounts = backend._accounts  # below the protocol on purpose: what a pooled connection still carries
    conn = accounts.acquire("app")
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT SYS_CONTEXT('MEMGATE_CTX', 'TENANT'), SYS_CONTEXT('MEMGATE_CTX', 'USER_ID') FROM dual")
            assert cur.fetchone() == (None, None)
    finally:
        accounts.release("app", conn)
