"""The MCP App views' statements through the backend protocol, on every backend: the caller's claims, notes
and candidates (view_claims, view_notes, candidate_list), a review bound to a version (candidate_for_decision,
candidate_decide), and a manifest's supersedes chain (memory_links_touching)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from backend_helpers import operator_rows

from memgate.manager import ACME, Conflict, Identity
from memgate.manager.clock import now_iso
from memgate.manager.registry.calllog import CallRecord

BOB = Identity(tenant="acme", user="bob", agent="research-assistant", principal="test:bob")


def _pending(manager):
    manager.log_call(
        ACME,
        CallRecord(
            call_id="call_v", called_at=now_iso(), tool_name="lookup_entity", status="ok", cited_ids=("chk_acme_1_0",)
        ),
    )
    out = manager.remember(
        ACME, "0.81", kind="fact", subject="model:helios-rag", predicate="beir_ndcg10", evidence=["chk_acme_1_0"]
    )
    return out.structured["candidate_id"]


def test_the_memory_view_reads_the_callers_own_rows_and_a_review_is_bound_to_its_version(manager, backend, two_tenants):
    cid = _pending(manager)
    view = manager.show_memory(ACME, review_tool="review_candidate").structured
    statuses = {m["id"]: (m["status"], m["version"]) for m in view["memories"]}
    assert statuses["ent_acme_helios_v1"] == ("superseded", 1) and statuses["ent_acme_helios_v2"] == ("current", 2)
    assert [(c["id"], c["decision"], c["version"]) for c in view["candidates"]] == [(cid, "pending", 1)]
    assert manager.show_memory(BOB).structured["candidates"] == []
    reviewer = replace(ACME, principal="test:reviewer")  # nobody approves their own proposal
    with pytest.raises(Conflict, match="not the version 2 you saw"):
        manager.review_candidate(reviewer, cid, 2, "approve")
    assert manager.review_candidate(reviewer, cid, 1, "approve").structured["version"] == 2
    [row] = operator_rows(backend, "memory_candidate", "WHERE id = :id", {"id": cid})
    assert (row["decision"], row["version"]) == ("approved", 2)
    with pytest.raises(Conflict, match="is approved, not pending"):
        manager.review_candidate(ACME, cid, 2, "reject")


def test_the_manifest_view_slices_sum_to_the_total_and_the_chain_is_read_through_the_wall(manager, two_tenants):
    window = manager.assemble_context(ACME, "Is Helios RAG's nDCG@10 on BEIR really 0.92?", "fact_check")
    d = manager.show_manifest(ACME, window.manifest_id).structured
    assert sum(s["tokens"] for s in d["slices"]) == d["total"] == window.manifest["arithmetic"]["total"]
    assert {"relation": "supersedes", "ids": ["ent_acme_helios_v2", "ent_acme_helios_v1"]} in d["history"]
