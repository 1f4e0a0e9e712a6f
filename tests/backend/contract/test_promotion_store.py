"""The promotion gate's statements through the backend protocol: candidates, assessments, their links,
the duplicate and rate reads, review and reassessment, on every backend."""

from __future__ import annotations

from backend_helpers import operator_rows

from memgate.manager import ACME, Identity, promotion_review
from memgate.manager.clock import now_iso
from memgate.manager.registry.calllog import CallRecord

BOB = Identity(tenant="acme", user="bob", agent="research-assistant", principal="test:bob")


def _given(manager, *ids):
    manager.log_call(
        ACME, CallRecord(call_id="call_c", called_at=now_iso(), tool_name="lookup_entity", status="ok", cited_ids=ids)
    )


def test_a_promoted_fact_its_candidate_assessments_and_supports_link_commit_together(manager, backend, two_tenants):
    _given(manager, "chk_acme_1_1")
    out = manager.remember(
        ACME, "0.91", kind="fact", subject="model:helios-rag", predicate="recall_at_100", evidence=["chk_acme_1_1"]
    )
    record, candidate = out.structured["record_id"], out.structured["candidate_id"]
    [row] = operator_rows(backend, "memory_candidate")
    assert (row["id"], row["decision"], row["record_id"], row["user_id"], row["tenant_id"]) == (
        candidate,
        "promoted",
        record,
        "jane",
        "acme",
    )
    assert len(operator_rows(backend, "memory_assessment")) == 3
    supports = [
        r for r in operator_rows(backend, "memory_link") if r["link_type"] == "supports" and r["to_id"] == record
    ]
    assert [(r["from_id"], r["user_id"]) for r in supports] == [("chk_acme_1_1", "jane")]
    listed, more = promotion_review.candidates(manager, "acme")
    assert [r["id"] for r in listed] == [candidate] and not more
    assert promotion_review.candidates(manager, "globex") == ([], False)


def test_a_pending_conflict_links_its_candidate_and_duplicates_and_rate_are_read_back(manager, backend, two_tenants):
    _given(manager, "chk_acme_1_0", "chk_acme_1_1")
    pending = manager.remember(
        ACME, "0.81", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_0"]
    )
    [link] = [r for r in operator_rows(backend, "memory_link") if r["from_type"] == "memory_candidate"]
    assert (link["from_id"], link["link_type"], link["to_id"]) == (
        pending.structured["candidate_id"],
        "contradicts",
        "ent_acme_helios_v2",
    )
    note = "The August re-run of Helios RAG on BEIR found nDCG@10 of 0.78, and recall@100 stayed at 0.91."
    first = manager.remember(ACME, note, evidence=["chk_acme_1_0", "chk_acme_1_1"])
    again = manager.remember(ACME, note, evidence=["chk_acme_1_0", "chk_acme_1_1"])
    assert (
        again.structured["decision"] == "duplicate" and again.structured["record_id"] == first.structured["record_id"]
    )
    promotion_review.set_policy(manager, "acme", {"rate_per_hour": 3})
    assert manager.remember(ACME, "Recall@100 stayed at 0.91.", evidence=["chk_acme_1_0"]).structured["rule"] == "rate"


def test_a_correction_marks_what_rests_on_it_and_review_decides_as_the_proposer(manager, backend, two_tenants):
    _given(manager, "ent_acme_helios_owner", "chk_acme_1_0")
    owned = "Helios RAG is owned by Jane; its August re-run found nDCG@10 of 0.78."
    note = manager.remember(ACME, owned, evidence=["ent_acme_helios_owner", "chk_acme_1_0"])
    assert note.structured["decision"] == "promoted", note.text
    manager.correct_entity(ACME, "model:helios-rag", "owner", "bob")
    [row] = [r for r in operator_rows(backend, "memory_candidate") if r["id"] == note.structured["candidate_id"]]
    assert row["reassess"] == 1
    pending = manager.remember(
        ACME, "0.80", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_0"]
    )
    approved = promotion_review.approve(manager, "acme", pending.structured["candidate_id"])  # the operator reviews
    assert approved["decision"] == "approved" and approved["record_type"] == "entity_memory"
    assert "<content>0.80" in manager.lookup_entity(ACME, "model:helios-rag", "beir_ndcg10").text
    assert "<content>0.78" in manager.lookup_entity(BOB, "model:helios-rag", "beir_ndcg10").text
