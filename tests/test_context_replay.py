"""Replay: a window rebuilt from its manifest's row versions, before and after the facts move on."""

from __future__ import annotations

from dataclasses import replace

import pytest
from context_helpers import FACT_CHECK, JANE_IN_REVIEW, excluded

from memgate.manager import ACME, NotFound


@pytest.fixture
def window(manager, two_tenants):
    return manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")


def test_a_fresh_manifest_replays_to_the_same_window_and_hash(manager, window):
    r = manager.replay_context(JANE_IN_REVIEW, window.manifest_id)
    assert r.matches and r.missing == []
    assert r.text == window.text and r.window_hash == window.manifest["window_hash"]


def test_after_a_correction_replay_still_rebuilds_the_old_window_from_retained_versions(manager, window):
    manager.correct_entity(ACME, "model:helios-rag", "beir_ndcg10", "0.81", expected_version=2,
                           content_json={"dataset": "BEIR", "metric": "nDCG@10"})
    fresh = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    [v3] = [m for m in fresh["memories"] if m["type"] == "entity" and m["ref"]["version"] == 3]
    assert excluded(fresh)["ent_acme_helios_v2"] == "lifecycle"
    [july] = [m for m in fresh["memories"] if m["ref"]["id"] == "sum_acme_july"]
    assert july["annotations"][0]["current_fact_id"] == v3["ref"]["id"]
    old = manager.replay_context(JANE_IN_REVIEW, window.manifest_id)
    assert old.matches and "<content>model:helios-rag beir_ndcg10 = 0.78" in old.text
    assert "0.81" not in old.text


def test_replay_says_which_dependency_was_deleted(manager, window):
    # re-ingesting the report replaces its chunks: the old chunk rows are gone
    manager.ingest_text(ACME, title="Helios RAG evaluation report (August re-run)", text="Rewritten report.",
                        source_uri="demo://acme/1", collection="demo")
    r = manager.replay_context(JANE_IN_REVIEW, window.manifest_id)
    assert not r.matches and r.text is None
    assert {(m.ref["table"], m.ref["id"], m.reason) for m in r.missing} >= {
        ("knowledge_base_chunk", "chk_acme_1_0", "deleted")}


def test_another_user_or_thread_cannot_replay_or_read_the_manifest(manager, window):
    for other in (replace(JANE_IN_REVIEW, user="bob"), replace(JANE_IN_REVIEW, thread="elsewhere")):
        with pytest.raises(NotFound, match="no context manifest"):
            manager.replay_context(other, window.manifest_id)
