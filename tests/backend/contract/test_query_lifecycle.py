"""execute_query's reviewed views show rows current at the call's time; *_history views label every version.

The labels are lookup_entity's (manager/claims/entities.py label_versions): the database's
status column and the manager's labels must agree on every claim.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from memgate.manager import ACME, Identity, now_iso
from memgate.manager.claims.entities import label_versions
from memgate.manager.demo.dataset import CORRECTED, JULY

BOB = Identity(tenant="acme", user="bob", agent="research-assistant")
LATER = "2027-01-01T00:00:00.000Z"


def _query(backend, identity, sql, now=LATER):
    result = backend.run_readonly_query(identity, sql, 500, 10.0, now)
    return [dict(zip(result.columns, row)) for row in result.rows]


def _claim(s, id, predicate, content, version, valid_from, **extra):
    """One version, written in July (a row written after an evaluation time did not exist at it)."""
    s.insert(
        "entity_memory",
        {
            "id": id,
            "tenant_id": "acme",
            "subject": "model:helios-rag",
            "predicate": predicate,
            "content": content,
            "version": version,
            "valid_from": valid_from,
            "created_at": JULY,
            **extra,
        },
    )


@pytest.fixture
def versions(backend, two_tenants):
    """The demo claims, plus one claim per label: pending, deleted, expired, and a user's own override."""
    with backend.session(ACME) as s, s.transaction():
        _claim(s, "ent_recall_v1", "recall100", "0.91", 1, JULY)
        _claim(s, "ent_recall_jane", "recall100", "0.93 (jane's rerun)", 1, CORRECTED, user_id="jane")
        _claim(s, "ent_latency_v1", "latency_ms", "120", 1, JULY, valid_until=CORRECTED)
        _claim(s, "ent_cost_v1", "cost", "3 USD", 1, JULY, deleted_at=CORRECTED)
        _claim(s, "ent_size_v1", "size", "7B", 1, JULY, valid_until="2028-01-01T00:00:00.000Z")
        _claim(s, "ent_size_v2", "size", "8B", 2, "2028-01-01T00:00:00.000Z")
    return backend


def test_entity_memory_shows_only_the_current_version_and_history_labels_both(backend, two_tenants):
    sql = (
        "SELECT content, version{} FROM entity_memory{} WHERE subject = 'model:helios-rag' "
        "AND predicate = 'beir_ndcg10' ORDER BY version"
    )
    assert _query(backend, ACME, sql.format("", "")) == [{"content": "0.78", "version": 2}]
    assert _query(backend, ACME, sql.format(", status", "_history")) == [
        {"content": "0.92", "version": 1, "status": "superseded"},
        {"content": "0.78", "version": 2, "status": "current"},
    ]


def test_the_views_are_evaluated_at_the_calls_time(backend, two_tenants):
    sql = "SELECT id, status FROM entity_memory_history WHERE predicate = 'beir_ndcg10' ORDER BY version"
    before_the_correction = "2026-08-01T00:00:00.000Z"
    # version 2 was written at the correction: at an earlier evaluation time it did not exist yet
    # (as Flashback at that moment would show), so it is neither current nor pending then
    assert _query(backend, ACME, sql, now=before_the_correction) == [
        {"id": "ent_acme_helios_v1", "status": "current"},
    ]
    assert _query(
        backend, ACME, "SELECT content FROM entity_memory WHERE predicate = 'beir_ndcg10'", now=before_the_correction
    ) == [{"content": "0.92"}]
    assert _query(backend, ACME, "SELECT count(*) AS n FROM summarization_memory", now=JULY) == [{"n": 0}]


def test_each_history_status_and_the_current_row_per_claim(versions):
    got = {r["id"]: r["status"] for r in _query(versions, ACME, "SELECT id, status FROM entity_memory_history")}
    assert got == {
        "ent_acme_helios_v1": "superseded",
        "ent_acme_helios_v2": "current",
        "ent_acme_helios_owner": "current",
        "ent_recall_jane": "current",
        "ent_recall_v1": "superseded",
        "ent_latency_v1": "expired",
        "ent_cost_v1": "deleted",
        "ent_size_v1": "current",
        "ent_size_v2": "pending",
    }
    current = _query(versions, ACME, "SELECT id FROM entity_memory ORDER BY id")
    assert [r["id"] for r in current] == sorted(k for k, v in got.items() if v == "current")
    # bob has no override of recall100: the tenant-wide version is the one in force for him
    bob = {r["id"]: r["status"] for r in _query(versions, BOB, "SELECT id, status FROM entity_memory_history")}
    assert "ent_recall_jane" not in bob and bob["ent_recall_v1"] == "current"


@pytest.mark.parametrize("identity", [ACME, BOB, replace(ACME, thread="t-1")], ids=["jane", "bob", "thread"])
@pytest.mark.parametrize("now", [JULY, "2026-08-01T00:00:00.000Z", CORRECTED, LATER, "2029-01-01T00:00:00.000Z"])
def test_the_history_status_agrees_with_lookup_entitys_labels(manager, versions, identity, now):
    rows = _query(versions, identity, "SELECT * FROM entity_memory_history", now=now)
    in_sql = {r["id"]: r["status"] for r in rows}
    claims, _ = manager.lookup_claims(identity, "model:helios-rag", now=now)
    in_lookup = {v.id: v.status for c in claims for v in ([c.current] if c.current else []) + c.history}
    assert in_sql == in_lookup and len(in_sql) >= 7
    # and label_versions itself, on the view's own rows in lookup_entity's order
    for predicate in {r["predicate"] for r in rows}:
        claim = sorted(
            (r for r in rows if r["predicate"] == predicate),
            key=lambda r: (
                -sum(r[c] is not None for c in ("user_id", "agent_id", "thread_id")),
                -r["version"],
                r["id"],
            ),
        )
        assert [r["status"] for r in claim] == [v.status for v in label_versions(claim, now)], predicate


def test_guideline_persona_and_workflow_have_history_views_too(backend, two_tenants):
    for view, key in (
        ("guideline_memory", "guideline_key"),
        ("persona_memory", "persona_key"),
        ("workflow_memory", "workflow_key"),
    ):
        history = _query(backend, ACME, f"SELECT {key}, status FROM {view}_history ORDER BY {key}")
        current = _query(backend, ACME, f"SELECT {key} FROM {view} ORDER BY {key}")
        assert history and {r["status"] for r in history} == {"current"}, view
        assert [r[key] for r in current] == [r[key] for r in history], view


def test_conversation_memory_is_readable_and_scoped(backend, two_tenants):
    with backend.session(ACME) as s:
        s.insert(
            "conversation_memory",
            {
                "id": "cnv_jane",
                "tenant_id": "acme",
                "user_id": "jane",
                "event_type": "turn",
                "content": "jane's turn",
                "valid_from": JULY,
            },
        )
    sql = "SELECT id FROM conversation_memory WHERE id = 'cnv_jane' OR user_id = 'bob'"
    assert _query(backend, ACME, sql, now=now_iso()) == [{"id": "cnv_jane"}]
    assert _query(backend, BOB, sql, now=now_iso()) == []


def test_named_binds_are_bound_as_values_never_as_sql(backend, two_tenants):
    sql = "SELECT id FROM entity_memory WHERE subject = :subject AND version >= :least ORDER BY id"
    rows = backend.run_readonly_query(ACME, sql, 500, 10.0, LATER, binds={"subject": "model:helios-rag", "least": 2})
    assert [r[0] for r in rows.rows] == ["ent_acme_helios_v2"]
    injected = backend.run_readonly_query(ACME, sql, 500, 10.0, LATER, binds={"subject": "x' OR '1'='1", "least": 0})
    assert injected.rows == []
