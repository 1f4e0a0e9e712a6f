"""`memgate candidates`: the operator lists, shows, approves, rejects and reassesses what the gate decided,
and sets the tenant's promotion mode (auto, review, shadow)."""

from __future__ import annotations

import pytest
from backend_helpers import operator_rows
from cli_helpers import cli_runner

from memgate.manager import ACME, Identity
from memgate.manager.clock import now_iso
from memgate.manager.registry.calllog import CallRecord

#: what two passages say together (one passage's own sentence would be a duplicate of it)
NOTE = "The August re-run of Helios RAG on BEIR found nDCG@10 of 0.78, and recall@100 stayed at 0.91."
BOTH = ["chk_acme_1_0", "chk_acme_1_1"]
OWNED = "Helios RAG is owned by Jane; its August re-run found nDCG@10 of 0.78."
CONFLICT = {"kind": "fact", "subject": "model:helios-rag", "predicate": "beir_ndcg10", "content": "0.81"}


@pytest.fixture
def run(sqlite_path, monkeypatch, manager, two_tenants):
    manager.log_call(
        ACME,
        CallRecord(
            call_id="call_1",
            called_at=now_iso(),
            tool_name="search_memory",
            status="ok",
            cited_ids=("chk_acme_1_0", "chk_acme_1_1", "ent_acme_helios_owner"),
        ),
    )
    return cli_runner(sqlite_path, monkeypatch)


def test_ls_and_show_name_every_decision_and_assessment(run, manager):
    promoted = manager.remember(ACME, NOTE, evidence=BOTH).structured
    manager.remember(ACME, evidence=["chk_acme_1_0"], **CONFLICT)
    listed = run("candidates", "ls", "-t", "acme").output
    assert promoted["candidate_id"] in listed and "promoted" in listed and "conflict" in listed
    assert run("candidates", "ls", "-t", "globex").output == "No candidates for globex.\n"
    shown = run("candidates", "show", promoted["candidate_id"], "-t", "acme").output
    assert f"record: knowledge_base_document {promoted['record_id']}" in shown
    assert "evidence: chk_acme_1_0 v1, chk_acme_1_1 v1" in shown
    for question in ("supported", "scope_fits", "conflict"):
        assert f"assessment: {question} (v1) = " in shown
    missing = run("candidates", "show", promoted["candidate_id"], "-t", "globex", ok=False).output
    assert f"tenant globex has no candidate {promoted['candidate_id']}" in missing


def test_approving_a_pending_conflict_writes_janes_correction_and_reject_writes_nothing(run, manager, backend):
    pending = manager.remember(ACME, evidence=["chk_acme_1_0"], **CONFLICT).structured["candidate_id"]
    out = run("candidates", "approve", pending, "-t", "acme").output
    assert out.startswith(f"approved {pending}: entity_memory ent_")
    assert (
        "<content>0.81" in manager.lookup_entity(ACME, "model:helios-rag", "beir_ndcg10").text
    )  # jane's, most specific
    bob = Identity(tenant="acme", user="bob", agent="research-assistant")
    assert (
        '<memory id="ent_acme_helios_v2" type="entity" status="current"'
        in manager.lookup_entity(bob, "model:helios-rag", "beir_ndcg10").text
    )
    again = run("candidates", "approve", pending, "-t", "acme", ok=False).output
    assert "is approved, not pending; nothing was written" in again
    other = manager.remember(
        ACME, "0.70", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_1"]
    )
    rejected = other.structured["candidate_id"]
    assert run("candidates", "reject", rejected, "-t", "acme").output == f"rejected {rejected}\n"
    [row] = operator_rows(backend, "memory_candidate", "WHERE id = :id", {"id": rejected})
    assert (row["decision"], row["rule"], row["decided_by"]) == ("rejected", "review:rejected", "cli:operator")


def test_shadow_mode_records_every_decision_and_promotes_nothing(run, manager, backend):
    out = run("candidates", "policy", "-t", "acme", "--mode", "shadow").output
    assert "version 1" in out and '"mode": "shadow"' in out
    first = manager.remember(ACME, NOTE, evidence=BOTH)
    assert first.text.startswith("pending cand_") and "rule: shadow:promoted" in first.text
    assert operator_rows(backend, "knowledge_base_document", "WHERE collection = 'remembered'") == []
    run("candidates", "policy", "-t", "acme", "--mode", "auto")
    assert "pending" in run("candidates", "ls", "-t", "acme", "--decision", "pending").output
    bad = run("candidates", "policy", "-t", "acme", "--set", 'thresholds={"supported": 2}', ok=False).output
    assert "threshold supported must be a number from 0 to 1, got 2" in bad


def test_reassess_promotes_again_when_the_corrected_evidence_still_supports_the_memory(run, manager, backend):
    note = manager.remember(ACME, OWNED, evidence=["ent_acme_helios_owner", "chk_acme_1_0"])
    assert note.text.startswith("promoted "), note.text
    manager.correct_entity(ACME, "model:helios-rag", "owner", "jane")  # same value, new version
    listed = run("candidates", "ls", "-t", "acme", "--reassess").output
    assert note.structured["candidate_id"] in listed and "reassess" in listed
    assert "results: 0" in manager.search_memory(ACME, "Helios RAG owned by Jane", collection="remembered").text
    out = run("candidates", "reassess", "-t", "acme").output
    assert out.startswith(f"{note.structured['candidate_id']}: promoted again as doc_"), out
    assert OWNED in manager.search_memory(ACME, "Helios RAG owned by Jane", collection="remembered").text
    assert run("candidates", "reassess", "-t", "acme").output == "Nothing to reassess for acme.\n"


def test_reassess_holds_back_a_memory_its_corrected_evidence_no_longer_supports(run, manager):
    note = manager.remember(ACME, OWNED, evidence=["ent_acme_helios_owner", "chk_acme_1_0"])
    manager.correct_entity(ACME, "model:helios-rag", "owner", "bob")
    out = run("candidates", "reassess", "-t", "acme").output
    assert out == f"{note.structured['candidate_id']}: pending: supported fails against the evidence as it is now\n"
    assert "results: 0" in manager.search_memory(ACME, "Helios RAG owned by Jane", collection="remembered").text


def test_approve_and_reject_read_a_thread_evidenced_preference_in_its_proposers_conversation(run, manager, backend):
    from dataclasses import replace

    in_thread = replace(ACME, thread="helios-review")
    turn = manager.record_turn(in_thread, "user", "Please send me the evaluation numbers as a table.")
    run("candidates", "policy", "-t", "acme", "--mode", "review")
    pending = manager.remember(
        in_thread, "jane wants the evaluation numbers as a table.", "preference", evidence=[turn["id"]]
    ).structured
    assert pending["rule"] == "review", pending  # it passed the gate: what the user asked for, in her own turn
    [row] = operator_rows(backend, "memory_candidate", "WHERE id = :id", {"id": pending["candidate_id"]})
    assert row["scope"] == "user" and row["thread_id"] is None  # user-scoped: the candidate names no thread
    out = run("candidates", "approve", pending["candidate_id"], "-t", "acme").output
    assert out.startswith(f"approved {pending['candidate_id']}: knowledge_base_document doc_"), out
    [doc] = operator_rows(backend, "knowledge_base_document", "WHERE id = :id", {"id": out.split()[-1]})
    assert (doc["user_id"], doc["thread_id"], doc["collection"]) == ("jane", None, "remembered")
    other = manager.remember(in_thread, "Use tables for jane's numbers.", "procedure", evidence=[turn["id"]])
    rejected = other.structured["candidate_id"]
    assert run("candidates", "reject", rejected, "-t", "acme").output == f"rejected {rejected}\n"
