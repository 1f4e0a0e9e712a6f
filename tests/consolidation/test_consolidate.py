"""`memgate consolidate`: what it finds on a seeded tenant (precision and recall of the planted merges),
that a dry run writes nothing, and that --apply changes nothing a review did not approve."""

from __future__ import annotations

import random

import pytest
from backend_helpers import operator_rows, table_digest
from cli_helpers import cli_runner

from bench.consolidation_seed import score, seed_tenant
from memgate.manager import (
    ACME,
    Identity,
    InvalidArgument,
    consolidate,
    decide_merge,
    erase,
    load_tool_definitions,
    merges,
    seed_demo,
)


@pytest.fixture
def seeded(manager):
    manager.seed_tools(Identity(tenant="bench", principal="test"), load_tool_definitions())
    return manager, seed_tenant(manager, random.Random(7))


def test_the_seeded_tenants_planted_merges_are_proposed_with_precision_and_recall_of_90_percent(seeded):
    manager, planted = seeded
    before = table_digest(manager.backend)
    report = consolidate(manager.backend, manager.embedder, "bench")
    figures = score(report, planted)
    print(f"consolidation on the seeded tenant: {figures}")
    assert figures["precision"] >= 0.9 and figures["recall"] >= 0.9, figures
    # every reason is exercised, and Bob's copies of Jane's notes (another scope) are not her duplicates
    assert {r: v["found"] > 0 for r, v in figures["by_reason"].items()} == {
        "near_duplicate": True,
        "repeats_kb": True,
        "stale": True,
    }
    assert all(f.triple[0] != "bob" for f in report.found)
    assert report.counts()["stale"] == {"summary": 6}
    # a dry run writes nothing, not even a proposal
    assert table_digest(manager.backend) == before and merges(manager.backend, "bench") == []


def test_apply_records_proposals_and_changes_nothing_a_review_did_not_approve(seeded):
    manager, _ = seeded
    before = table_digest(manager.backend)
    first = consolidate(manager.backend, manager.embedder, "bench", apply=True)
    assert first.recorded == len(first.found) > 30 and first.applied == 0
    assert table_digest(manager.backend) == before  # proposals only, in the operator's table
    proposed = merges(manager.backend, "bench", "proposed")
    assert len(proposed) == first.recorded
    # a second run proposes nothing twice
    again = consolidate(manager.backend, manager.embedder, "bench", apply=True)
    assert (again.recorded, again.proposed_before) == (0, first.recorded)
    # one stale summary and one duplicate note approved, one rejected: only those two change
    stale = next(m for m in proposed if m["reason"] == "stale")
    note = next(m for m in proposed if m["reason"] == "near_duplicate" and m["from_type"] == "knowledge_base_document")
    other = next(m for m in proposed if m["merge_id"] not in (stale["merge_id"], note["merge_id"]))
    for m in (stale, note):
        decide_merge(manager.backend, "bench", m["merge_id"], "approved", "test:reviewer")
    decide_merge(manager.backend, "bench", other["merge_id"], "rejected", "test:reviewer")
    links_before = len(operator_rows(manager.backend, "memory_link"))
    counts = {t: len(operator_rows(manager.backend, t)) for t in manager.backend.tables()}
    done = consolidate(manager.backend, manager.embedder, "bench", apply=True)
    assert (done.applied, done.gone) == (2, 0)
    assert {t: len(operator_rows(manager.backend, t)) for t in manager.backend.tables()} == {
        **counts,
        "memory_link": links_before + 2,
    }  # nothing deleted: the retired records stay, ended
    [summary] = operator_rows(manager.backend, "summarization_memory", "WHERE id = :i", {"i": stale["retire_id"]})
    [doc] = operator_rows(manager.backend, "knowledge_base_document", "WHERE id = :i", {"i": note["retire_id"]})
    assert summary["valid_until"] is not None and doc["valid_until"] is not None
    chunks = operator_rows(manager.backend, "knowledge_base_chunk", "WHERE document_id = :d", {"d": doc["id"]})
    assert chunks and all(c["valid_until"] == doc["valid_until"] for c in chunks)
    links = operator_rows(manager.backend, "memory_link", "WHERE provenance = 'extraction'")
    assert {(lnk["from_id"], lnk["link_type"], lnk["to_id"]) for lnk in links} == {
        (stale["from_id"], "supersedes", stale["to_id"]),
        (note["from_id"], "duplicates", note["to_id"]),
    }
    # the rejected one's records, and every record no review approved, are as they were
    assert {m["merge_id"]: m["decision"] for m in merges(manager.backend, "bench") if m["decision"] != "proposed"} == {
        stale["merge_id"]: "applied",
        note["merge_id"]: "applied",
        other["merge_id"]: "rejected",
    }
    untouched = [m for m in merges(manager.backend, "bench") if m["decision"] in ("proposed", "rejected")]
    for m in untouched:
        for side in ("from", "to"):
            rows = operator_rows(manager.backend, m[f"{side}_type"], "WHERE id = :i", {"i": m[f"{side}_id"]})
            assert rows[0]["valid_until"] is None or m[f"{side}_type"] == "entity_memory", m


def test_an_approved_merge_whose_record_changed_since_is_gone_and_writes_nothing(manager):
    seed_demo(manager)
    manager.seed_tools(ACME, load_tool_definitions())
    found = consolidate(manager.backend, manager.embedder, "acme", apply=True)
    [stale] = merges(manager.backend, "acme")
    assert (stale["reason"], stale["retire_id"], stale["user_id"]) == ("stale", "sum_acme_july", "jane")
    assert found.counts() == {"stale": {"summary": 1}}
    decide_merge(manager.backend, "acme", stale["merge_id"], "approved", "test")
    # the claim is corrected again before the merge is carried out: the merge's end is not current
    manager.correct_entity(ACME, "model:helios-rag", "beir_ndcg10", "0.80", expected_version=2)
    before = table_digest(manager.backend)
    done = consolidate(manager.backend, manager.embedder, "acme", kind="user", subject="jane", apply=True)
    assert (done.applied, done.gone) == (0, 1)
    assert table_digest(manager.backend) == before
    with pytest.raises(InvalidArgument, match="is gone, not proposed; nothing changed"):
        decide_merge(manager.backend, "acme", stale["merge_id"], "approved", "test")


def test_forget_erases_the_users_proposed_merges(manager):
    seed_demo(manager)
    manager.seed_tools(ACME, load_tool_definitions())
    consolidate(manager.backend, manager.embedder, "acme", apply=True)
    assert len(merges(manager.backend, "acme")) == 1
    report = erase(manager.backend, "acme", "user", "jane", requested_by="test")
    assert report.counts.get("merge_candidate") == 1 and merges(manager.backend, "acme") == []


def test_the_commands(manager, sqlite_path, monkeypatch):
    seed_demo(manager)
    manager.seed_tools(ACME, load_tool_definitions())
    invoke = cli_runner(sqlite_path, monkeypatch)
    dry = invoke("consolidate", "-t", "acme").output
    assert "stale           ent_acme_helios_v2 supersedes sum_acme_july  [user jane]" in dry
    assert "stale: summary 1" in dry and "would propose 1 merge(s); nothing was written" in dry
    assert "recorded 1 new proposal(s) for review" in invoke("consolidate", "-t", "acme", "--apply").output
    listed = invoke("consolidate", "ls", "-t", "acme").output
    merge_id = listed.split()[0]
    assert " proposed stale " in listed and "(ends sum_acme_july)" in listed
    assert f"{merge_id} approved" in invoke("consolidate", "approve", merge_id, "-t", "acme").output
    applied = invoke("consolidate", "-t", "acme", "--apply").output
    assert "carried out 1 approved merge(s), 0 gone" in applied
    assert "applied" in invoke("consolidate", "ls", "-t", "acme", "--decision", "applied").output
    assert "name the tenant" in invoke("consolidate", ok=False).output
    refused = invoke("consolidate", "reject", "mrg_nope", "-t", "acme", ok=False).output
    assert "has no proposed merge mrg_nope" in refused
