"""Context windows and replay on every backend: a manifest records the row versions a window read
with the backend's change marker, and replay rebuilds the window from those versions.

Replay never reads as of a marker: ids are per version and corrections keep every version, so
the versions a window read stay readable by id, and a dependency deleted since reads as deleted
on every backend. The marker says what the backend itself can name of the moment (Oracle: the
SCN, for an operator's AS OF query; SQLite: nothing beyond the versions read).
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from context_helpers import FACT_CHECK, JANE_IN_REVIEW

from memgate.manager import ACME, GLOBEX, NotFound


@pytest.fixture
def window(manager, two_tenants):
    return manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")


def test_a_change_marker_is_a_json_object_that_names_its_kind_and_counts_forward(backend, two_tenants):
    with backend.session(ACME) as s:
        first = s.change_marker()
    with backend.session(ACME) as s:
        s.insert("summarization_memory", {"id": "sum_after", "tenant_id": "acme", "title": "t", "content": "c"})
    with backend.session(GLOBEX) as s:
        second = s.change_marker()
    assert json.loads(json.dumps(first)) == first and isinstance(first["kind"], str) and first["kind"]
    assert second["kind"] == first["kind"] and set(second) == set(first)
    numbers = {k: v for k, v in first.items() if k != "kind"}
    assert all(isinstance(v, int) and second[k] > v for k, v in numbers.items())  # a commit came between


def test_a_manifest_keeps_every_version_it_read_and_the_backends_marker(manager, backend, window):
    marker = window.manifest["change_marker"]
    with backend.session(ACME) as s:
        assert set(marker) == set(s.change_marker()) | {"versions", "sha256"}
    read = {tuple(v) for v in marker["versions"]}
    assert {tuple(m["ref"].values()) for m in window.manifest["memories"]} <= read
    assert {tuple(e["ref"].values()) for e in window.manifest["exclusions"]} <= read
    assert manager.context_manifest(JANE_IN_REVIEW, window.manifest_id) == window.manifest


def test_a_fresh_manifest_replays_to_the_same_window_and_hash(manager, window):
    r = manager.replay_context(JANE_IN_REVIEW, window.manifest_id)
    assert r.matches and r.missing == []
    assert r.text == window.text and r.window_hash == window.manifest["window_hash"]


def test_after_a_correction_replay_still_rebuilds_the_old_window_from_retained_versions(manager, window):
    manager.correct_entity(
        ACME,
        "model:helios-rag",
        "beir_ndcg10",
        "0.81",
        expected_version=2,
        content_json={"dataset": "BEIR", "metric": "nDCG@10"},
    )
    fresh = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check").manifest
    [v3] = [m for m in fresh["memories"] if m["type"] == "entity" and m["ref"]["version"] == 3]
    # version 2 is superseded now, and fact_check admits no linked history: a lifecycle exclusion
    [v2] = [e for e in fresh["exclusions"] if e["ref"]["id"] == "ent_acme_helios_v2"]
    assert (v2["rule"], v2["detail"]) == ("lifecycle", "superseded")
    assert "ent_acme_helios_v2" not in {m["ref"]["id"] for m in fresh["memories"]}
    [july] = [m for m in fresh["memories"] if m["ref"]["id"] == "sum_acme_july"]
    assert july["annotations"][0]["current_fact_id"] == v3["ref"]["id"]
    old = manager.replay_context(JANE_IN_REVIEW, window.manifest_id)
    assert old.matches and "<content>model:helios-rag beir_ndcg10 = 0.78" in old.text
    assert "0.81" not in old.text


def test_replay_says_which_dependency_was_deleted(manager, window):
    # re-ingesting the report replaces its chunks: the old chunk rows are gone
    manager.ingest_text(
        ACME,
        title="Helios RAG evaluation report (August re-run)",
        text="Rewritten report.",
        source_uri="demo://acme/1",
        collection="demo",
    )
    r = manager.replay_context(JANE_IN_REVIEW, window.manifest_id)
    assert not r.matches and r.text is None
    assert {(m.ref["table"], m.ref["id"], m.reason) for m in r.missing} >= {
        ("knowledge_base_chunk", "chk_acme_1_0", "deleted")
    }


def test_another_tenant_user_or_thread_cannot_replay_or_read_the_manifest(manager, window):
    others = (
        replace(JANE_IN_REVIEW, user="bob"),
        replace(JANE_IN_REVIEW, thread="elsewhere"),
        replace(GLOBEX, user=JANE_IN_REVIEW.user, thread=JANE_IN_REVIEW.thread),
    )
    for other in others:
        with pytest.raises(NotFound, match="no context manifest"):
            manager.replay_context(other, window.manifest_id)
        with pytest.raises(NotFound, match="no context manifest"):
            manager.context_manifest(other, window.manifest_id)


def test_as_of_the_marker_a_since_replaced_dependency_still_replays_where_the_backend_keeps_a_change_number(
    manager, backend, window
):
    """Oracle reads the manifest's versions at its SCN (Flashback, VPD still on); SQLite keeps no change number."""
    manager.ingest_text(
        ACME,
        title="Helios RAG evaluation report (August re-run)",
        text="Rewritten report.",
        source_uri="demo://acme/1",
        collection="demo",
    )
    assert manager.replay_context(JANE_IN_REVIEW, window.manifest_id).missing  # read as it is now: gone
    if backend.dialect == "sqlite":
        with pytest.raises(NotFound, match="SQLite keeps no change number"):
            manager.replay_context(JANE_IN_REVIEW, window.manifest_id, as_of_marker=True)
        return
    r = manager.replay_context(JANE_IN_REVIEW, window.manifest_id, as_of_marker=True)
    marker = window.manifest["change_marker"]
    assert r.as_of == {"kind": marker["kind"], "scn": marker["scn"]}
    assert r.matches and r.text == window.text
    with pytest.raises(NotFound, match="no change marker|names no Oracle SCN"):
        with backend.session(ACME) as s, s.as_of({"kind": "sqlite_versions_read"}):
            pass


def test_as_of_the_marker_another_user_still_cannot_replay(manager, backend, window):
    if backend.dialect == "sqlite":
        pytest.skip("SQLite keeps no change number: as-of replay is refused before any read (test above)")
    with pytest.raises(NotFound, match="no context manifest"):
        manager.replay_context(replace(JANE_IN_REVIEW, user="bob"), window.manifest_id, as_of_marker=True)
