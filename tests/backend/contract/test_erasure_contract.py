"""Erasure and expiry through the backend protocol (Backend.retention_store), on every backend:
the subject's rows go from every table (each written by the marker scan's writers,
tests/retention_helpers.py), links touching them follow, call-log rows keep their identity with
the content replaced, other users' rows stay, and a dry run changes nothing."""

from __future__ import annotations

from dataclasses import replace

from backend_helpers import operator_rows, table_digest
from retention_helpers import Writing, subject_rows, user_memory_row, write_everything

from memgate.manager import ACME, GLOBEX, CallRecord, Identity, erase, expire, set_retention
from memgate.manager.retention import erased_ids

JANE = replace(ACME, thread="t-jane")
BOB = Identity(tenant="acme", user="bob", agent="research-assistant", thread="t-bob", principal="test:bob")


def _write(manager, who, text):
    turn = manager.record_turn(who, "user", text)
    doc = manager.ingest_text(who, title=text, text=f"{text}. " * 30, source_uri=f"memo://{who.user}", user_id=who.user)
    manager.add_link(who, turn["id"], "supports", doc.document_id, note=text)
    manager.log_call(
        who,
        CallRecord(
            call_id=f"call-{who.tenant}-{who.user}",
            called_at="2026-01-01T00:00:00.000Z",
            tool_name="search_memory",
            status="ok",
            arguments={"query": text},
            result_text=text,
        ),
    )
    return turn, doc


def test_erasure_reaches_every_copy_and_only_the_subjects(manager, backend, two_tenants, tmp_path):
    manager.seed_tools(ACME, [user_memory_row()])
    jane_turn, jane_doc = _write(manager, JANE, "jane secret")
    _write(manager, BOB, "bob note")
    for who, text in ((JANE, "jane secret"), (BOB, "bob note")):
        write_everything(Writing(manager, who, text, tmp_path, "doc_acme_1"))
    assert all(subject_rows(backend, t, "jane") for t in backend.tables()), "a table holds no row of jane's"
    before = table_digest(backend)
    dry = erase(backend, "acme", "user", "jane", requested_by="test", dry_run=True)
    assert dry.total > 0 and table_digest(backend) == before
    bob_rows = {t: subject_rows(backend, t, "bob") for t in backend.tables()}
    report = erase(backend, "acme", "user", "jane", requested_by="test", compact=False)
    assert report.counts == {k: v for k, v in dry.counts.items()}
    for table in backend.tables():
        if table == "mcp_call_log":
            continue
        assert subject_rows(backend, table, "jane") == [], table
    assert operator_rows(backend, "memory_link", "WHERE from_id = :i OR to_id = :i", {"i": jane_turn["id"]}) == []
    (call,) = operator_rows(backend, "mcp_call_log", "WHERE call_id = 'call-acme-jane'")
    assert (call["tool_name"], call["status"], call["arguments_json"], call["result_text"]) == (
        "search_memory",
        "ok",
        '"[erased]"',
        "[erased]",
    )
    assert {t: subject_rows(backend, t, "bob") for t in bob_rows} == bob_rows
    assert erased_ids(backend, "acme", [jane_turn["id"], jane_doc.document_id, "nope"]) == {
        jane_turn["id"],
        jane_doc.document_id,
    }


def test_expiry_deletes_by_age_in_every_scope(manager, backend, two_tenants):
    _write(manager, JANE, "jane old")
    _write(manager, BOB, "bob old")
    manager.record_turn(replace(GLOBEX, thread="g"), "user", "globex keeps its own policy")
    set_retention(backend, "acme", {"conversation_memory": 0}, "test")
    report = expire(backend, "acme", batch=1)
    assert report.counts["conversation_memory"] >= 2
    assert operator_rows(backend, "conversation_memory", "WHERE event_type = 'turn' AND tenant_id = 'acme'") == []
    assert operator_rows(backend, "conversation_memory", "WHERE tenant_id = 'globex'")  # another tenant's stay


def test_erasure_and_expiry_stay_in_their_tenant_when_another_has_the_same_names(manager, backend, two_tenants):
    """globex has a jane too: erasing acme's jane, and expiring acme's turns, leave hers whole (and end:
    a step whose select reached rows its delete cannot stops at once instead of looping)."""
    globex_jane = Identity(tenant="globex", user="jane", agent="research-assistant", thread="t-jane", principal="t:g")
    _write(manager, JANE, "acme jane")
    _write(manager, globex_jane, "globex jane")
    globex = {t: operator_rows(backend, t, "WHERE tenant_id = 'globex'") for t in backend.tables()}
    report = erase(backend, "acme", "user", "jane", requested_by="test", compact=False)
    assert report.counts["mcp_call_log"] == 1
    acme_jane = "WHERE tenant_id = 'acme' AND user_id = 'jane'"
    assert [
        t for t in backend.tables() if t not in ("memory_file", "mcp_call_log") and operator_rows(backend, t, acme_jane)
    ] == []
    set_retention(backend, "acme", {"conversation_memory": 0}, "test")
    expire(backend, "acme", batch=1)
    assert {t: operator_rows(backend, t, "WHERE tenant_id = 'globex'") for t in backend.tables()} == globex
