"""An operator's approval re-reads the evidence the gate read: gone since, or changed in place since,
and the approval writes nothing, saying which."""

from __future__ import annotations

from dataclasses import replace

import pytest
from backend_helpers import operator_rows
from test_gate import first_line, given
from test_gate_evidence_rules import CLAIM, _pump_report, pump_and_valve

from memgate.manager import ACME, Conflict, promotion_review
from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions
from memgate.manager.clock import now_iso
from memgate.manager.promotion import review


@pytest.fixture
def held(manager, two_tenants):
    """A candidate the gate passed and the tenant's review mode holds, resting on two documents."""
    pump, valve = pump_and_valve(manager)
    given(manager, ACME, pump, valve)
    review.set_policy(manager, "acme", {"mode": "review"})
    out = manager.remember(ACME, CLAIM, evidence=[pump, valve])
    assert first_line(out).endswith("rule: review"), out.text
    return manager, out.structured["candidate_id"], pump


def _nothing_promoted(manager, cid):
    [row] = operator_rows(manager.backend, "memory_candidate", "WHERE id = :c", {"c": cid})
    assert (row["decision"], row["version"]) == ("pending", 1)
    assert operator_rows(manager.backend, "knowledge_base_document", "WHERE collection = 'remembered'") == []


def test_approving_a_candidate_whose_evidence_was_deleted_says_so_and_writes_nothing(held):
    manager, cid, pump = held
    with manager.backend.unwalled_connection() as conn:
        install_context_functions(conn, ConnectionContext("acme", ACME.user))
        conn.execute(
            f"UPDATE {manager.backend.physical_table('knowledge_base_document')} SET deleted_at = ? WHERE id = ?",
            (now_iso(), pump),
        )
        conn.commit()
    with pytest.raises(Conflict, match="evidence is no longer there as the gate read it") as caught:
        promotion_review.approve(manager, "acme", cid)
    assert "memgate candidates reassess -t acme" in (caught.value.hint or "")
    _nothing_promoted(manager, cid)


def test_approving_a_candidate_whose_evidence_changed_in_place_writes_nothing(held):
    manager, cid, pump = held
    assert (
        _pump_report(manager, text="The Aurora pump overheated in March, and again in May.") == pump
    )  # re-ingested: v2
    with pytest.raises(Conflict, match="evidence changed; nothing was written"):
        promotion_review.approve(manager, "acme", cid)
    _nothing_promoted(manager, cid)


def test_approving_a_candidate_resting_on_the_proposers_turn_reads_it_in_the_proposers_conversation(
    manager, two_tenants
):
    who = replace(ACME, thread="t-review")
    review.set_policy(manager, "acme", {"mode": "review"})
    said = manager.record_turn(who, "user", "Please report every metric with two decimals.")
    out = manager.remember(who, "Report every metric with two decimals.", kind="preference", evidence=[said["id"]])
    assert first_line(out).endswith("rule: review"), out.text
    approved = promotion_review.approve(manager, "acme", out.structured["candidate_id"])
    assert approved["decision"] == "approved"
