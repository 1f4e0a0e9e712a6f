"""`memgate expire`: a tenant's retention policy applied in batches; expired turns leave the window and the file."""

from __future__ import annotations

from datetime import timedelta

import pytest
from backend_helpers import operator_rows
from cli_helpers import cli_runner
from memory_helpers import seed
from retention_helpers import file_hits, table_hits

from memgate.manager import Identity, InvalidArgument, expire, load_policy, set_retention
from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions
from memgate.manager.clock import days_ago_iso, now_iso, parse_iso, to_iso

TURN_MARK = "qzturnmark2290"
FILE_MARK = "qzfilemark3381"
TENANT = "shop"


@pytest.fixture
def shop(manager):
    seed(manager, Identity(tenant=TENANT, principal="test:init"))
    jane = Identity(tenant=TENANT, user="jane", agent="helper", thread="t1", principal="test:jane")
    for n in range(7):
        manager.record_turn(jane, "user", f"question {n} about {TURN_MARK}")
    with manager.memory_store_files(jane, "user:jane") as files:
        files.put("/memories/notes.md", f"keep {FILE_MARK}")
    doc = manager.ingest_text(jane, title="kept", text="A kept document. " * 10, source_uri="memo://kept")
    return manager, jane, doc


def test_a_zero_day_turn_rule_leaves_no_turn_text_and_keeps_the_rest(shop, sqlite_path, monkeypatch):
    manager, jane, doc = shop
    invoke = cli_runner(sqlite_path, monkeypatch)
    invoke("retention", "set", "-t", TENANT, "conversation_memory=0")
    assert "conversation_memory    0 days     (tenant)" in invoke("retention", "show", "-t", TENANT).output
    before = manager.assemble_context(jane, "what did I ask?", "fact_check")
    assert TURN_MARK in before.text  # the tail carried the turns (and its manifest copies them)
    dry = invoke("expire", "-t", TENANT, "--dry-run", "--batch", "3").output
    assert "shop conversation_memory (conversation_memory)" not in dry  # labelled by the table alone
    assert "would expire 8 row(s)" in dry  # 7 turns, and the manifest that copied them
    assert len(operator_rows(manager.backend, "conversation_memory")) == 8
    result = invoke("expire", "-t", TENANT, "--batch", "3")
    assert "shop: expired 8 row(s)" in result.output
    assert table_hits(sqlite_path, TURN_MARK) == {}
    assert file_hits(sqlite_path, TURN_MARK) == 0
    # the rest stays: the memory file (180 days), the document (keep)
    assert table_hits(sqlite_path, FILE_MARK) == {"base_memory_file": 1}
    assert operator_rows(manager.backend, "knowledge_base_document", "WHERE id = :d", {"d": doc.document_id})
    # expired turns left the window's tail at once
    window = manager.assemble_context(jane, "what did I ask?", "fact_check")
    assert TURN_MARK not in window.text


def test_expire_works_in_bounded_batches_with_a_progress_line(shop, sqlite_path, monkeypatch):
    manager, _, _ = shop
    lines = []
    manager_policy = load_policy(manager.backend, TENANT)
    assert manager_policy.days["conversation_memory"] == 90  # the shipped default
    invoke = cli_runner(sqlite_path, monkeypatch)
    invoke("retention", "set", "-t", TENANT, "conversation_memory=0")
    report = expire(manager.backend, TENANT, batch=2, progress=lines.append)
    assert report.counts == {"conversation_memory": 7}
    assert lines == [f"shop conversation_memory: {n} expired" for n in (2, 4, 6, 7)]


def test_a_rule_must_be_days_or_keep(shop, sqlite_path, monkeypatch):
    _manager, _, _ = shop
    invoke = cli_runner(sqlite_path, monkeypatch)
    assert (
        "days must be a whole number >= 0"
        in invoke("retention", "set", "-t", TENANT, "memory_file=-3", ok=False).output
    )
    assert "unknown memory type 'turns'" in invoke("retention", "set", "-t", TENANT, "turns=3", ok=False).output
    from memgate.manager.retention.policy import parse_rule

    with pytest.raises(InvalidArgument, match="days must be a whole number"):
        parse_rule("mcp_call_log", 1.5)
    assert parse_rule("mcp_call_log", "keep") is None


def test_documents_expire_with_their_chunks(shop, sqlite_path, monkeypatch):
    manager, _, doc = shop
    invoke = cli_runner(sqlite_path, monkeypatch)
    invoke("retention", "set", "-t", TENANT, "knowledge_base=0")
    out = invoke("expire", "-t", TENANT).output
    assert "knowledge_base_document (knowledge_base)" in out and "knowledge_base_chunk (knowledge_base)" in out
    assert (
        operator_rows(manager.backend, "knowledge_base_chunk", "WHERE document_id = :d", {"d": doc.document_id}) == []
    )


def test_memory_files_expire_by_their_last_update_through_their_store(shop, sqlite_path, monkeypatch):
    manager, _jane, _ = shop
    invoke = cli_runner(sqlite_path, monkeypatch)
    invoke("retention", "set", "-t", TENANT, "memory_file=0")
    out = invoke("expire", "-t", TENANT).output
    assert "shop memory_file" in out and "shop: expired 1 row(s)" in out
    assert table_hits(sqlite_path, FILE_MARK) == {}
    assert operator_rows(manager.backend, "memory_store")  # the store stays; only its files aged out


def _conversation(manager) -> dict[str, int]:
    rows = operator_rows(manager.backend, "conversation_memory")
    return {t: sum(r["event_type"] == t for r in rows) for t in sorted({r["event_type"] for r in rows})}


def test_manifests_keep_their_own_days_apart_from_the_turns(shop, sqlite_path, monkeypatch):
    """context_manifest at 0 days, turns at their 90: the window's manifest goes, every turn stays."""
    manager, jane, _ = shop
    manager.assemble_context(jane, "what did I ask?", "fact_check")
    assert _conversation(manager) == {"context_manifest": 1, "turn": 7}
    invoke = cli_runner(sqlite_path, monkeypatch)
    invoke("retention", "set", "-t", TENANT, "context_manifest=0")
    out = invoke("expire", "-t", TENANT).output
    assert "shop conversation_memory (context_manifest)" in out and "shop: expired 1 row(s)" in out
    assert _conversation(manager) == {"turn": 7}
    assert TURN_MARK in manager.assemble_context(jane, "what did I ask?", "fact_check").text


def test_the_turn_rule_counts_turns_and_the_manifests_that_copied_them_apart(shop):
    """Turns at 0 days: the manifest goes too (it copies them), counted under its own type."""
    manager, jane, _ = shop
    manager.assemble_context(jane, "what did I ask?", "fact_check")
    set_retention(manager.backend, TENANT, {"conversation_memory": 0}, "test")
    report = expire(manager.backend, TENANT)
    assert report.counts == {"conversation_memory": 7, "conversation_memory (context_manifest)": 1}
    assert _conversation(manager) == {}


def test_a_summary_keeps_no_longer_than_the_turns_it_copies(shop):
    """Summaries keep 365 days, turns 0: the summary of those turns goes with them."""
    manager, jane, _ = shop
    assert manager.compact_conversation(jane, "fact_check", force=True) is not None
    assert operator_rows(manager.backend, "summarization_memory")
    set_retention(manager.backend, TENANT, {"conversation_memory": 0, "context_manifest": "keep"}, "test")
    report = expire(manager.backend, TENANT)
    assert report.counts.get("summarization_memory") == 1, report.counts
    assert operator_rows(manager.backend, "summarization_memory") == []


def test_a_memory_file_ages_from_its_last_update_not_its_creation(shop):
    """Written 30 days ago, updated today: a 7-day memory_file rule keeps it."""
    manager, _jane, _ = shop
    with manager.backend.unwalled_connection() as conn:  # the file was first written a month ago
        install_context_functions(conn, ConnectionContext(TENANT, "jane", "helper", "t1"))
        conn.execute("UPDATE base_memory_file SET created_at = ?", (days_ago_iso(30),))
        conn.commit()
    set_retention(manager.backend, TENANT, {"memory_file": 7}, "test")
    assert expire(manager.backend, TENANT).counts == {}
    assert len(operator_rows(manager.backend, "memory_file")) == 1
    later = to_iso(parse_iso(now_iso()) + timedelta(days=8))
    assert expire(manager.backend, TENANT, now=later).counts == {"memory_file": 1}
