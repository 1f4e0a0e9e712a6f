"""The memory view's data (ui://memgate/memory, and `memgate ui`'s for the operator): every promoted memory
type with the scope it is visible in, and for each candidate what a reviewer decides from, its
assessments and the evidence it rests on, read through the reader's wall (the proposer's, for the operator)."""

from __future__ import annotations

import pytest
from app_helpers import PREFERENCE, remembered_memories
from context_helpers import JANE_IN_REVIEW

from memgate.manager import Identity, operator_memory_view


@pytest.fixture
def remembered(manager, two_tenants):
    return remembered_memories(manager)


def test_every_promoted_memory_type_is_listed_by_type_with_who_may_see_it(manager, remembered):
    view = manager.show_memory(JANE_IN_REVIEW).structured
    assert view["types"] == {"fact": 3, "note": 1, "preference": 1, "procedure": 1}
    shown = [(m["type"], m["visibility"]) for m in view["memories"]]
    assert shown == [("fact", "tenant")] * 3 + [
        ("note", "user jane"),
        ("preference", "user jane"),
        ("procedure", "user jane"),
    ]
    by_type = {m["type"]: m for m in view["memories"]}
    assert by_type["preference"]["id"] == remembered[PREFERENCE]["record_id"]
    assert by_type["procedure"]["status"] == "current"


def test_a_candidate_carries_its_assessments_and_the_evidence_it_rests_on(manager, remembered):
    view = manager.show_memory(JANE_IN_REVIEW).structured
    [pending] = [c for c in view["candidates"] if c["decision"] == "pending"]
    assert pending["rule"] == "assessment:supported"
    scores = {a["question"]: (a["passed"], a["threshold"]) for a in pending["assessments"]}
    assert scores == {"supported": (False, 0.9), "scope_fits": (False, 0.9), "conflict": (True, 0.1)}
    assert all(isinstance(a["probability"], float) for a in pending["assessments"])
    [evidence] = pending["evidence"]
    assert (evidence["id"], evidence["version"], evidence["visibility"], evidence["same_version"]) == (
        "chk_acme_1_0",
        1,
        "tenant",
        True,
    )
    assert "found nDCG@10 of 0.78" in evidence["excerpt"] and len(evidence["excerpt"]) <= 240
    text = manager.show_memory(JANE_IN_REVIEW).text
    assert "supported 0.30 vs 0.90 fail" in text and "evidence: chk_acme_1_0" in text


def test_another_reader_sees_neither_janes_memories_nor_her_candidates(manager, remembered):
    bob = Identity(tenant="acme", user="bob", principal="bob")
    view = manager.show_memory(bob).structured
    assert view["candidates"] == [] and {m["type"] for m in view["memories"]} == {"fact"}


def test_the_operator_view_lists_every_users_memories_and_reads_evidence_as_the_proposer(manager, remembered):
    tenant_wide = manager.show_memory(Identity(tenant="acme", principal="cli:operator")).structured
    assert tenant_wide["types"]["note"] == 0  # what `memgate ui` showed: the tenant-wide wall hides jane's notes
    out = operator_memory_view(manager, "acme", limit=50, review_tool="review_candidate")
    view = out.structured
    assert view["types"] == {"fact": 3, "note": 1, "preference": 1, "procedure": 1}
    assert {m["visibility"] for m in view["memories"] if m["type"] != "fact"} == {"user jane"}
    [pending] = [c for c in view["candidates"] if c["decision"] == "pending"]
    assert pending["user"] == "jane" and len(pending["assessments"]) == 3
    assert pending["evidence"][0]["excerpt"] and view["review_tool"] == "review_candidate"
    assert "globex" not in out.text
