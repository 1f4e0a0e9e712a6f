"""lookup_entity returns the current version with labeled history; corrections are atomic."""

from __future__ import annotations

import pytest

from memgate.manager import Conflict, MemoryManager


def _current(manager, identity, subject="model:helios-rag", predicate="beir_ndcg10"):
    claims, _ = manager.lookup_claims(identity, subject, predicate)
    return claims[0]


def test_lookup_returns_078_as_current_and_092_as_superseded_history(manager, two_tenants):
    acme, _ = two_tenants
    claim = _current(manager, acme)
    assert (claim.current.row["content"], claim.current.version, claim.current.status) == ("0.78", 2, "current")
    assert [(v.row["content"], v.version, v.status) for v in claim.history] == [("0.92", 1, "superseded")]


def test_lookup_entity_text_labels_current_and_history_with_citation_ids(manager, two_tenants):
    acme, _ = two_tenants
    out = manager.lookup_entity(acme, "model:helios-rag", "beir_ndcg10")
    first_line = out.text.splitlines()[0]
    assert first_line.startswith(
        "entity: model:helios-rag beir_ndcg10 | claims: 1 | versions shown: 2 | more exist: no | tokens: "
    )
    assert '<memory id="ent_acme_helios_v2" type="entity" status="current" version="2"' in out.text
    assert '<memory id="ent_acme_helios_v1" type="entity" status="superseded" version="1"' in out.text
    assert out.text.index('status="current"') < out.text.index('status="superseded"')
    assert out.cited_ids == ("ent_acme_helios_v2", "ent_acme_helios_v1")
    assert out.tokens > 0


def test_globex_sees_only_its_own_value_for_the_same_subject(manager, two_tenants):
    _, globex = two_tenants
    claim = _current(manager, globex)
    assert claim.current.row["content"] == "0.55"
    assert claim.history == []


def test_a_missing_claim_says_nothing_is_recorded(manager, two_tenants):
    acme, _ = two_tenants
    out = manager.lookup_entity(acme, "model:nope")
    assert out.text == "entity: model:nope | claims: 0\nNo claim is recorded for this subject."


def test_a_correction_closes_the_old_version_and_inserts_the_next(manager, two_tenants):
    acme, _ = two_tenants
    row = manager.correct_entity(acme, "model:helios-rag", "beir_ndcg10", "0.81", expected_version=2)
    claim = _current(manager, acme)
    assert (claim.current.row["content"], claim.current.version) == ("0.81", 3)
    assert row["source_id"] == "ent_acme_helios_v2"
    assert [(v.version, v.status) for v in claim.history] == [(2, "superseded"), (1, "superseded")]


def test_a_correction_against_a_stale_version_is_refused_and_writes_nothing(manager, two_tenants):
    acme, _ = two_tenants
    with pytest.raises(Conflict, match="is at version 2, not 1"):
        manager.correct_entity(acme, "model:helios-rag", "beir_ndcg10", "0.5", expected_version=1)
    assert _current(manager, acme).current.version == 2


def test_two_processes_correcting_the_same_version_cannot_both_win(open_database, manager, two_tenants):
    acme, _ = two_tenants
    other = MemoryManager(open_database())  # a second process on the same database
    manager.correct_entity(acme, "model:helios-rag", "beir_ndcg10", "0.80", expected_version=2)
    with pytest.raises(Conflict, match="is at version 3, not 2; nothing was written"):
        other.correct_entity(acme, "model:helios-rag", "beir_ndcg10", "0.79", expected_version=2)
    other.close()
    assert _current(manager, acme).current.row["content"] == "0.80"


def test_claim_versions_cannot_be_edited_in_place(backend, two_tenants):
    acme, _ = two_tenants
    from memgate.manager.errors import AccessDenied

    with backend.session(acme) as s, pytest.raises(AccessDenied, match="cannot be changed in place"):
        s.raw("UPDATE entity_memory SET content = '0.99' WHERE id = 'ent_acme_helios_v2'")


def test_an_expired_claim_is_history_not_current(manager, two_tenants):
    acme, _ = two_tenants
    manager.correct_entity(acme, "project:apollo", "status", "green")
    with manager.backend.session(acme) as s:
        s.raw("UPDATE entity_memory SET valid_until = '2000-01-01T00:00:00.000Z' WHERE subject = 'project:apollo'")
    claim = _current(manager, acme, "project:apollo", "status")
    assert claim.current is None
    assert [v.status for v in claim.history] == ["expired"]


def test_a_user_scoped_claim_wins_over_the_tenant_wide_one_for_that_user_only(manager, two_tenants):
    acme, _ = two_tenants
    manager.correct_entity(acme, "pref:units", "length", "metric")
    manager.correct_entity(acme, "pref:units", "length", "imperial", user_id="jane")
    from dataclasses import replace

    assert _current(manager, acme, "pref:units", "length").current.row["content"] == "imperial"
    assert _current(manager, replace(acme, user="bob"), "pref:units", "length").current.row["content"] == "metric"
