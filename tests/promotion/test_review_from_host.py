"""Reviewing a candidate from a host (the memory view's buttons): bound to id and version, walled, re-checked."""

from __future__ import annotations

from dataclasses import replace

import pytest
from app_helpers import pending_candidate, seed_apps
from backend_helpers import operator_rows, table_digest
from context_helpers import JANE_IN_REVIEW

from memgate.manager import GLOBEX, CandidateNotVisible, Conflict, InvalidArgument, OwnCandidate, promotion_review

BOB = replace(JANE_IN_REVIEW, user="bob", principal="test:bob")
#: jane reviewing in her host: her wall, another principal than the agent session that proposed
REVIEWER = replace(JANE_IN_REVIEW, principal="test:jane-reviewer")


@pytest.fixture
def pending(manager, two_tenants):
    seed_apps(manager)
    return pending_candidate(manager)


def candidate_row(backend, cid):
    [row] = operator_rows(backend, "memory_candidate", "WHERE id = :id", {"id": cid})
    return row


def test_approve_at_the_version_shown_promotes_it_and_the_view_shows_the_decision(manager, backend, pending):
    cid = pending["candidate_id"]
    view = manager.show_memory(JANE_IN_REVIEW, review_tool="review_candidate").structured
    [shown] = [c for c in view["candidates"] if c["id"] == cid]
    assert (shown["decision"], shown["version"]) == ("pending", 1)
    out = manager.review_candidate(REVIEWER, cid, 1, "approve")
    assert out.structured["decision"] == "approved" and out.structured["version"] == 2, out.text
    row = candidate_row(backend, cid)
    assert (row["decision"], row["version"], row["decided_by"]) == ("approved", 2, "host:test:jane-reviewer")
    assert "<content>0.81" in manager.lookup_entity(JANE_IN_REVIEW, "model:helios-rag", "beir_ndcg10").text
    after = manager.show_memory(JANE_IN_REVIEW).structured
    assert [c["decision"] for c in after["candidates"] if c["id"] == cid] == ["approved"]


def test_reject_decides_and_writes_no_record(manager, backend, pending):
    out = manager.review_candidate(JANE_IN_REVIEW, pending["candidate_id"], 1, "reject")
    assert out.structured["decision"] == "rejected"
    assert "<content>0.81" not in manager.lookup_entity(JANE_IN_REVIEW, "model:helios-rag", "beir_ndcg10").text


def test_a_version_the_candidate_no_longer_has_writes_nothing(manager, backend, pending):
    cid = pending["candidate_id"]
    before = table_digest(backend, skip=("mcp_call_log",))
    with pytest.raises(Conflict, match="at version 1, not the version 7 you saw; nothing was written"):
        manager.review_candidate(JANE_IN_REVIEW, cid, 7, "approve")
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    manager.review_candidate(JANE_IN_REVIEW, cid, 1, "reject")
    with pytest.raises(Conflict, match="is rejected, not pending; nothing was written"):
        manager.review_candidate(JANE_IN_REVIEW, cid, 1, "approve")
    with pytest.raises(Conflict, match="is rejected, not pending"):
        promotion_review.approve(manager, "acme", cid)


def test_the_operator_cannot_approve_what_a_host_already_decided_at_that_version(manager, backend, pending):
    cid = pending["candidate_id"]
    stale = dict(candidate_row(backend, cid))
    manager.review_candidate(REVIEWER, cid, 1, "approve")
    before = table_digest(backend, skip=("mcp_call_log",))
    # a decision judged on version 1 reaches the gate's transaction after version 2 was written
    with pytest.raises(Conflict, match="changed while it was being decided; nothing was written"):
        promotion_review.reject_row(manager, "acme", {**stale, "decision": "pending"}, operator="test")
    assert table_digest(backend, skip=("mcp_call_log",)) == before


def test_another_users_candidate_is_not_there_for_the_caller_and_nothing_changes(manager, backend, pending):
    cid = pending["candidate_id"]
    before = table_digest(backend, skip=("mcp_call_log",))
    with pytest.raises(CandidateNotVisible, match="is no candidate of this caller; nothing was written"):
        manager.review_candidate(BOB, cid, 1, "approve")
    with pytest.raises(CandidateNotVisible, match="is no candidate of this caller"):
        manager.review_candidate(replace(GLOBEX, user="jane"), cid, 1, "approve")
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    assert manager.show_memory(BOB).structured["candidates"] == []


def test_nobody_approves_their_own_proposal_but_may_withdraw_it(manager, backend, pending):
    cid = pending["candidate_id"]
    before = table_digest(backend, skip=("mcp_call_log",))
    with pytest.raises(OwnCandidate, match="was proposed by memgate demo itself; a different reviewer approves it"):
        manager.review_candidate(JANE_IN_REVIEW, cid, 1, "approve")
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    # a row read before the proposer was known (the page's own copy) is checked again in the transaction
    with pytest.raises(OwnCandidate, match="a different reviewer approves it; nothing was written"):
        promotion_review.approve_row(
            manager, "acme", {**candidate_row(backend, cid), "created_by": None}, operator="x", reviewer="memgate demo"
        )
    assert table_digest(backend, skip=("mcp_call_log",)) == before
    out = manager.review_candidate(JANE_IN_REVIEW, cid, 1, "reject")
    assert out.structured["decision"] == "rejected"


def test_an_unknown_decision_is_one_clear_error(manager, pending):
    with pytest.raises(InvalidArgument, match="decision must be one of"):
        manager.review_candidate(JANE_IN_REVIEW, pending["candidate_id"], 1, "promote")
