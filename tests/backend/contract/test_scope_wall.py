"""Inside a tenant, the database walls off user, agent and thread scope: unfiltered SQL sees only the caller's rows.

A row with user_id set is visible only to that user, with agent_id only to that agent,
with thread_id only in that thread; NULL means shared at that level. Writes are held to
the same wall: no caller writes, updates or deletes a row scoped to someone else.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from backend_helpers import operator_rows, table_digest

from memgate.manager import ACME, AccessDenied, Identity
from memgate.manager.registry.calllog import CallRecord

JANE = ACME  # the demo's acme user: jane, agent research-assistant
BOB = Identity(tenant="acme", user="bob", agent="research-assistant", principal="test:bob")
OTHER_AGENT = Identity(tenant="acme", user="jane", agent="support-bot", principal="test:jane")
IN_THREAD = replace(JANE, thread="t-1")
REFUSED = "scoped to another user, agent or thread"
T = "2026-09-01T00:00:00.000Z"


def _row(table: str, id: str, **scope) -> dict:
    """A minimal valid row of `table` holding the marker text, with the given scope columns."""
    body = {
        "entity_memory": {"subject": "model:helios-rag", "predicate": f"note_{id}", "content": f"secret {id}"},
        "guideline_memory": {"guideline_key": f"g_{id}", "content": f"secret {id}"},
        "workflow_memory": {"workflow_key": f"w_{id}", "title": id, "content": f"secret {id}"},
        "summarization_memory": {"title": id, "content": f"secret {id}"},
        "conversation_memory": {"event_type": "turn", "role": "user", "content": f"secret {id}"},
        "knowledge_base_document": {"title": id, "content": f"secret {id}", "source_uri": f"test://{id}"},
        "knowledge_base_chunk": {"document_id": "doc_x", "position": 0, "content": f"zebracorn secret {id}"},
        "image_memory": {
            "title": f"{id}.png",
            "source_uri": f"test://{id}",
            "description": f"secret {id}",
            "mime_type": "image/png",
            "width": 1,
            "height": 1,
            "byte_size": 8,
            "sha256": "0" * 64,
            "bytes": b"\x89PNG\r\n\x1a\n",
        },
        "memory_candidate": {
            "kind": "note",
            "scope": "user",
            "content": f"secret {id}",
            "content_hash": "0" * 64,
            "evidence_json": "[]",
            "decision": "pending",
            "rule": "review",
        },
        "memory_assessment": {
            "candidate_id": "cand_x",
            "question": "supported",
            "question_version": 1,
            "policy_version": 0,
            "assessor": "rules",
            "probability": 0.5,
            "threshold": 0.9,
            "passed": 0,
            "latency_ms": 0.1,
            "note": f"secret {id}",
        },
    }[table]
    return {"id": id, "tenant_id": "acme", **body, **scope}


@pytest.fixture
def scoped(backend, two_tenants):
    """The demo data, plus rows for jane only, for jane in thread t-1, and a jane-only memory store with a file."""
    with backend.session(JANE) as s, s.transaction():
        for table in (
            "entity_memory",
            "guideline_memory",
            "workflow_memory",
            "conversation_memory",
            "knowledge_base_document",
            "knowledge_base_chunk",
            "image_memory",
            "memory_candidate",
            "memory_assessment",
        ):
            s.insert(table, _row(table, f"jane_{table}", user_id="jane"))
        s.insert(
            "memory_store",
            {"id": "mst_jane", "tenant_id": "acme", "user_id": "jane", "store_key": "user:jane", "scope": "user"},
        )
        s.insert(
            "memory_file",
            {
                "id": "mf_jane",
                "tenant_id": "acme",
                "store_id": "mst_jane",
                "path": "/memories/jane.md",
                "content": "secret jane file",
                "size_chars": 16,
                "size_bytes": 16,
            },
        )
    with backend.session(IN_THREAD) as s:
        s.insert("conversation_memory", _row("conversation_memory", "t1_turn", thread_id="t-1"))
    return backend


def _visible(backend, identity: Identity, table: str) -> set[str]:
    key = "call_id" if table == "mcp_call_log" else "id"
    with backend.session(identity) as s:
        return {r[key] for r in s.raw(f"SELECT * FROM {table}")}


def test_a_second_user_sees_none_of_janes_rows_in_any_table_even_unfiltered(scoped):
    jane_only = {
        r["id"]
        for t in scoped.tables()
        if t not in ("memory_file", "mcp_call_log")
        for r in operator_rows(scoped, t, "WHERE user_id = 'jane'")
        if r.get("thread_id") is None  # a conversation has no thread_id at all
    }
    assert "sum_acme_july" in jane_only and len(jane_only) >= 10  # the demo's summary and the fixture's rows
    with scoped.session(BOB) as s:
        for table in scoped.tables():
            rows = s.raw(f"SELECT * FROM {table}")
            assert {r.get("user_id") for r in rows} <= {None, "bob"}, table
            assert s.raw(f"SELECT count(*) AS n FROM {table} WHERE tenant_id = 'acme'") == [{"n": len(rows)}]
        # jane's store hides its file; the demo's agent store (any user of research-assistant) shows its own
        assert [r["path"] for r in s.raw("SELECT * FROM memory_file")] == ["/memories/progress.md"]
        assert s.raw("SELECT count(*) AS n FROM summarization_memory WHERE id = 'sum_acme_july'") == [{"n": 0}]
    seen_by_jane = set().union(*(_visible(scoped, JANE, t) for t in scoped.tables()))
    assert jane_only | {"mf_jane"} <= seen_by_jane


def test_agent_scoped_rows_are_seen_only_by_that_agent(scoped):
    assert "per_acme_research" in _visible(scoped, JANE, "persona_memory")  # the demo persona
    assert "per_acme_research" in _visible(scoped, BOB, "persona_memory")  # same agent, other user
    assert "per_acme_research" not in _visible(scoped, OTHER_AGENT, "persona_memory")
    assert "jane_entity_memory" in _visible(scoped, OTHER_AGENT, "entity_memory")  # user-scoped, any agent


def test_thread_scoped_rows_are_seen_only_in_that_thread(scoped):
    assert "t1_turn" in _visible(scoped, IN_THREAD, "conversation_memory")
    assert "t1_turn" not in _visible(scoped, JANE, "conversation_memory")
    assert "t1_turn" not in _visible(scoped, replace(JANE, thread="t-2"), "conversation_memory")
    assert "jane_conversation_memory" in _visible(scoped, IN_THREAD, "conversation_memory")  # NULL thread: shared


@pytest.mark.parametrize(
    "who, scope",
    [
        (BOB, {"user_id": "jane"}),
        (BOB, {"agent_id": "support-bot"}),
        (JANE, {"thread_id": "t-9"}),
        (IN_THREAD, {"thread_id": "t-2"}),
        (Identity(tenant="acme"), {"user_id": "jane"}),  # a caller with no user may write only shared rows
    ],
)
def test_a_write_scoped_to_another_user_agent_or_thread_is_refused_and_changes_nothing(scoped, who, scope):
    before = table_digest(scoped)
    for table in (
        "entity_memory",
        "summarization_memory",
        "conversation_memory",
        "knowledge_base_chunk",
        "image_memory",
        "memory_candidate",
        "memory_assessment",
    ):
        with scoped.session(who) as s, pytest.raises(AccessDenied, match=REFUSED):
            s.insert(table, _row(table, f"forged_{table}", **scope))
    assert table_digest(scoped) == before


def test_rescoping_an_own_row_to_another_user_is_refused(scoped):
    with scoped.session(BOB) as s:
        s.insert("summarization_memory", _row("summarization_memory", "bob_sum", user_id="bob"))
    before = table_digest(scoped)
    with scoped.session(BOB) as s:
        for sql in (
            "UPDATE summarization_memory SET user_id = 'jane' WHERE id = 'bob_sum'",
            "UPDATE summarization_memory SET agent_id = 'support-bot' WHERE id = 'bob_sum'",
        ):
            with pytest.raises(AccessDenied, match=REFUSED):
                s.raw(sql)
    assert table_digest(scoped) == before


def test_updates_and_deletes_outside_the_scope_touch_nothing(scoped):
    before = table_digest(scoped)
    with scoped.session(BOB) as s:
        s.raw("UPDATE summarization_memory SET content = 'pwned' WHERE id = 'sum_acme_july'")
        s.raw("DELETE FROM summarization_memory WHERE user_id = 'jane' OR id = 'sum_acme_july'")
        s.raw("DELETE FROM knowledge_base_chunk WHERE user_id IS NOT NULL")
        # jane's file; the demo's agent-store file is bob's to change too (same agent)
        s.raw("UPDATE memory_file SET content = 'pwned' WHERE store_id = 'mst_jane'")
        s.raw("DELETE FROM memory_file WHERE store_id = 'mst_jane'")
        s.raw("DELETE FROM memory_store WHERE store_key = 'user:jane'")
    with scoped.session(OTHER_AGENT) as s:
        s.raw("UPDATE persona_memory SET content = 'pwned'")
        s.raw("DELETE FROM persona_memory")
    with scoped.session(JANE) as s:
        s.raw("DELETE FROM conversation_memory WHERE thread_id = 't-1'")
    assert table_digest(scoped) == before


def test_a_file_cannot_be_written_into_a_store_the_caller_cannot_see(scoped):
    before = table_digest(scoped)
    with scoped.session(BOB) as s, pytest.raises(AccessDenied, match=REFUSED):
        s.insert(
            "memory_file",
            {
                "id": "mf_forged",
                "tenant_id": "acme",
                "store_id": "mst_jane",
                "path": "/memories/evil.md",
                "content": "x",
                "size_chars": 1,
                "size_bytes": 1,
            },
        )
    assert table_digest(scoped) == before


def test_the_call_log_shows_a_caller_only_the_calls_it_may_see(scoped, manager):
    for n, who in enumerate((JANE, BOB, IN_THREAD)):
        manager.log_call(
            who,
            CallRecord(
                call_id=f"call-{n}",
                tool_name="lookup_entity",
                status="ok",
                called_at=T,
                arguments={"subject": f"by {who.user} {who.thread}"},
            ),
        )

    def logged(who):
        return sorted(r["arguments_json"] for r in manager.recent_calls(who))

    assert logged(BOB) == ['{"subject": "by bob None"}']
    assert logged(JANE) == ['{"subject": "by jane None"}']
    assert logged(IN_THREAD) == ['{"subject": "by jane None"}', '{"subject": "by jane t-1"}']
    assert len(operator_rows(scoped, "mcp_call_log")) == 3


def test_search_legs_rank_only_chunks_in_the_callers_scope(scoped):
    from memgate.manager.backend.base import ChunkFilters

    where = ChunkFilters(now="2099-01-01T00:00:00.000Z")
    with scoped.session(JANE) as s:
        jane_seqs = {seq for seq, _ in s.kb_lexical("zebracorn", 10, where)}
    assert jane_seqs
    with scoped.session(BOB) as s:
        assert s.kb_lexical("zebracorn", 10, where) == []
