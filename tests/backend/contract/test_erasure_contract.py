"""Erasure and expiry through the backend protocol (Backend.retention_store), on every backend:
the subject's rows go, links touching them follow, call-log rows keep their identity with the
content replaced, other users' rows stay, and a dry run changes nothing."""

from __future__ import annotations

from dataclasses import replace

from backend_helpers import operator_rows, table_digest

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
            call_id=f"call-{who.user}",
            called_at="2026-01-01T00:00:00.000Z",
            tool_name="search_memory",
            status="ok",
            arguments={"query": text},
            result_text=text,
        ),
    )
    return turn, doc


def test_erasure_reaches_every_copy_and_only_the_subjects(manager, backend, two_tenants):
    jane_turn, jane_doc = _write(manager, JANE, "jane secret")
    _write(manager, BOB, "bob note")
    before = table_digest(backend)
    dry = erase(backend, "acme", "user", "jane", requested_by="test", dry_run=True)
    assert dry.total > 0 and table_digest(backend) == before
    bob_rows = {
        t: [r for r in operator_rows(backend, t) if r.get("user_id") == "bob"]
        for t in backend.tables()
        if t != "memory_file"
    }
    report = erase(backend, "acme", "user", "jane", requested_by="test", compact=False)
    assert report.counts == {k: v for k, v in dry.counts.items()}
    for table in backend.tables():
        if table in ("memory_file", "mcp_call_log"):
            continue
        assert [r for r in operator_rows(backend, table) if r.get("user_id") == "jane"] == [], table
    assert operator_rows(backend, "memory_link", "WHERE from_id = :i OR to_id = :i", {"i": jane_turn["id"]}) == []
    (call,) = operator_rows(backend, "mcp_call_log", "WHERE call_id = 'call-jane'")
    assert (call["tool_name"], call["status"], call["arguments_json"], call["result_text"]) == (
        "search_memory",
        "ok",
        '"[erased]"',
        "[erased]",
    )
    assert {t: [r for r in operator_rows(backend, t) if r.get("user_id") == "bob"] for t in bob_rows} == bob_rows
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
