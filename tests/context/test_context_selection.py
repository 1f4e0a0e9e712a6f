"""Selection's rules on real rows: lifecycle, dedup, conflicts, the score and its tie order.

Each test adds a few rows to the demo tenant acme, assembles jane's fact-check window and
reads the manifest: an excluded version must carry the rule (and state) that kept it out,
an admitted one the score the budget's weights give it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from context_helpers import FACT_CHECK, JANE_IN_REVIEW, excluded, placed

from memgate.manager import ContextBudget, Identity
from memgate.manager.context.candidates import Candidate
from memgate.manager.context.selection import select
from memgate.manager.demo.dataset import ACME_BUDGET, CORRECTED, JULY

SHARED = Identity(tenant="acme", principal="selection test")
#: thirty days after the correction: the demo's current fact is half as recent as recency_days allows
MONTH_LATER = "2026-09-14T16:30:00.000Z"


def _claim(id: str, predicate: str, content: str, *, version: int = 1, valid_from: str = JULY, **extra) -> dict:
    return {
        "id": id,
        "tenant_id": "acme",
        "subject": "model:helios-rag",
        "predicate": predicate,
        "content": content,
        "confidence": 0.9,
        "version": version,
        "valid_from": valid_from,
        "created_by": "selection test",
        "created_at": valid_from,
        **extra,
    }


def _insert(manager, identity: Identity, table: str, *rows: dict) -> None:
    with manager.backend.session(identity) as s, s.transaction():
        for row in rows:
            s.insert(table, row)


def _exclusion(manifest: dict, memory_id: str) -> tuple[str, str]:
    [e] = [e for e in manifest["exclusions"] if e["ref"]["id"] == memory_id]
    return e["rule"], e["detail"]


def test_deleted_pending_and_expired_versions_are_left_out_each_with_its_state(manager, two_tenants):
    _insert(
        manager,
        SHARED,
        "entity_memory",
        _claim("ent_deleted", "license", "apache-2.0", deleted_at=CORRECTED),
        _claim("ent_pending", "release", "helios 2.0", valid_from="2099-01-01T00:00:00.000Z"),
        _claim("ent_expired", "status", "in review", valid_until=CORRECTED),
    )
    m = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    assert _exclusion(m, "ent_deleted") == ("lifecycle", "deleted")
    assert _exclusion(m, "ent_pending") == ("lifecycle", "pending")
    assert _exclusion(m, "ent_expired") == ("lifecycle", "expired")
    # version 1 is closed with a newer version, and fact_check admits no linked history
    assert _exclusion(m, "ent_acme_helios_v1") == ("lifecycle", "superseded")
    assert not {"ent_deleted", "ent_pending", "ent_expired"} & set(placed(m))
    for version in ("ent_deleted", "ent_pending", "ent_expired"):
        assert ["entity_memory", version, 1] in m["change_marker"]["versions"]  # read, then excluded


def test_a_copy_of_a_chunk_in_another_type_is_dropped_keeping_the_more_authoritative_chunk(manager, two_tenants):
    chunk = (
        "The August re-run of the Helios RAG evaluation on BEIR found nDCG@10 of 0.78. "
        "The July figure of 0.92 was computed against qrels that leaked test queries into "
        "the tuning set; it is withdrawn."
    )
    copy = "  " + chunk.upper().replace(". ", ".\n   ").rstrip(".") + " "  # case, spacing, end punctuation
    _insert(
        manager,
        JANE_IN_REVIEW,
        "summarization_memory",
        {
            "id": "sum_copy",
            "tenant_id": "acme",
            "user_id": "jane",
            "title": "Re-run notes",
            "content": copy,
            "version": 1,
            "valid_from": CORRECTED,
            "created_by": "selection test",
            "created_at": CORRECTED,
        },
    )
    m = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    assert _exclusion(m, "sum_copy") == ("dedup", "same text as chk_acme_1_0")
    assert placed(m)["chk_acme_1_0"][0] == "evidence"


def test_within_a_claim_the_narrowest_scope_wins_and_the_other_is_a_conflict(manager, two_tenants):
    _insert(
        manager,
        JANE_IN_REVIEW,
        "entity_memory",
        {**_claim("ent_jane_owner", "owner", "jane and omar"), "user_id": "jane"},
    )
    m = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    assert placed(m)["ent_jane_owner"][0] == "durable_facts"
    rule, detail = _exclusion(m, "ent_acme_helios_owner")
    assert rule == "conflict" and detail.endswith("ent_jane_owner")
    # another user of the tenant does not see jane's claim: the tenant-wide one is theirs
    bob = replace(JANE_IN_REVIEW, user="bob", thread="bob-thread")
    other = manager.assemble_context(bob, FACT_CHECK, "fact_check").manifest
    assert "ent_acme_helios_owner" in placed(other) and "ent_jane_owner" not in excluded(other)


def test_claims_with_other_conditions_are_other_claims_not_conflicts(manager, two_tenants):
    _insert(
        manager,
        JANE_IN_REVIEW,
        "entity_memory",
        {**_claim("ent_jane_owner_eu", "owner", "omar", content_json='{"region": "eu"}'), "user_id": "jane"},
    )
    m = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    assert {"ent_jane_owner_eu", "ent_acme_helios_owner"} <= set(placed(m))


class _Constant:
    """Every candidate equally relevant: the score is left to confidence and recency."""

    name = "constant"

    def scores(self, question, candidates):
        return [1.0] * len(candidates)


def test_the_score_is_the_budgets_weights_over_rerank_confidence_and_recency(manager, two_tenants):
    m = manager.assemble_context(
        JANE_IN_REVIEW, FACT_CHECK, "fact_check", now=MONTH_LATER, reranker=_Constant()
    ).manifest
    scores = {e["ref"]["id"]: e["score"] for e in m["memories"] if "score" in e}
    # 0.60 * rerank + 0.25 * confidence (0.5 when none) + 0.15 * recency (1 - age / 60 days)
    assert scores["ent_acme_helios_v2"] == pytest.approx(0.60 + 0.25 * 0.9 + 0.15 * 0.5)  # 30 days old
    assert scores["ent_acme_helios_owner"] == pytest.approx(0.60 + 0.25 * 0.9)  # older than 60 days
    assert scores["chk_acme_1_0"] == pytest.approx(0.60 + 0.25 * 0.5)  # no confidence: 0.5
    durable = [e["ref"]["id"] for e in m["memories"] if e["slice"] == "durable_facts"]
    assert durable == ["ent_acme_helios_v2", "ent_acme_helios_owner"]  # best first


def test_equal_scores_are_ordered_by_priority_valid_from_table_and_id():
    def row(id, valid_from, **extra):
        return {
            "id": id,
            "version": 1,
            "valid_from": valid_from,
            "confidence": 0.5,
            "subject": id,
            "predicate": "p",
            "content": f"text of {id}",
            "workflow_key": id,
            "title": id,
            **extra,
        }

    candidates = [
        Candidate("workflow", "durable_facts", row("wfl_a", CORRECTED)),
        Candidate("entity", "durable_facts", row("ent_b", JULY)),
        Candidate("entity", "durable_facts", row("ent_c", CORRECTED)),
        Candidate("entity", "durable_facts", row("ent_a", JULY)),
        Candidate("summary", "recalled_history", row("sum_a", "2026-12-01T00:00:00.000Z")),
    ]
    budget = ContextBudget.from_guideline({**ACME_BUDGET, "weights": {"rerank": 1, "confidence": 0, "recency": 0}})
    admitted, out = select(
        candidates,
        question="q",
        now="2026-12-02T00:00:00.000Z",
        budget=budget,
        reranker=_Constant(),
    )
    assert out == [] and {c.score for c in admitted} == {1.0}
    # entity (priority 50) before workflow (40) before summary (20); newest first; then table, then id
    assert [c.id for c in admitted] == ["ent_c", "ent_a", "ent_b", "wfl_a", "sum_a"]


def test_a_claim_derived_from_a_corrected_version_is_historical_beside_the_current_fact(manager, two_tenants):
    _insert(
        manager,
        SHARED,
        "entity_memory",
        _claim(
            "ent_acme_headline",
            "headline",
            "Helios RAG leads BEIR at 0.92",
            valid_from="2026-07-20T00:00:00.000Z",
            source_table="entity_memory",
            source_id="ent_acme_helios_v1",
            source_version=1,
        ),
    )
    window = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    m = window.manifest
    assert placed(m)["ent_acme_headline"] == ("durable_facts", "full", "historical")
    [headline] = [e for e in m["memories"] if e["ref"]["id"] == "ent_acme_headline"]
    assert [n["current_fact_id"] for n in headline["annotations"]] == ["ent_acme_helios_v2"]
    assert placed(m)["ent_acme_helios_v2"] == ("durable_facts", "full", "current")  # its predecessor is not stale
    record = window.text.split('<memory id="ent_acme_headline"')[1].split("</memory>")[0]
    assert '<annotation current_fact_id="ent_acme_helios_v2">' in record


def test_a_claim_derived_from_a_withdrawn_fact_is_left_out(manager, two_tenants):
    _insert(
        manager,
        SHARED,
        "entity_memory",
        _claim("ent_acme_rank", "rank", "first", valid_until=CORRECTED),
        _claim(
            "ent_acme_boast",
            "boast",
            "Helios RAG ranks first",
            source_table="entity_memory",
            source_id="ent_acme_rank",
            source_version=1,
        ),
    )
    m = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    assert _exclusion(m, "ent_acme_boast") == ("conflict", "used a fact that has no current version")
