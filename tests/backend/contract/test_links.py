"""Links through the backend protocol: the wall holds the link rows and their far ends, corrections link."""

from __future__ import annotations

from dataclasses import replace

import pytest
from backend_helpers import operator_rows, table_digest

from memgate.manager import ACME, GLOBEX, Identity, InvalidArgument, NotFound
from memgate.manager.clock import now_iso
from memgate.manager.links import traverse

BOB = Identity(tenant="acme", user="bob", agent="research-assistant", principal="test:bob")


def _links(backend, **where):
    rows = operator_rows(backend, "memory_link")
    return [r for r in rows if all(r[k] == v for k, v in where.items())]


def test_a_correction_writes_its_supersedes_link_in_the_same_transaction(manager, backend, two_tenants):
    row = manager.correct_entity(ACME, "model:helios-rag", "beir_ndcg10", "0.81", expected_version=2)
    [link] = _links(backend, from_id=row["id"])
    assert {k: link[k] for k in ("from_type", "link_type", "to_type", "to_id", "provenance", "valid_from")} == {
        "from_type": "entity_memory",
        "link_type": "supersedes",
        "to_type": "entity_memory",
        "to_id": "ent_acme_helios_v2",
        "provenance": "correction",
        "valid_from": row["valid_from"],
    }
    assert (link["tenant_id"], link["user_id"]) == ("acme", None)


def test_a_first_version_links_nothing(manager, backend, two_tenants):
    row = manager.correct_entity(ACME, "model:helios-rag", "license", "apache-2.0")
    assert _links(backend, from_id=row["id"]) == []


def test_the_demo_links_helios_v2_to_v1_and_the_report_to_v2_and_the_july_summary(backend, two_tenants):
    found = {(r["from_id"], r["link_type"], r["to_id"], r["provenance"], r["user_id"]) for r in _links(backend)}
    assert found == {
        ("ent_acme_helios_v2", "supersedes", "ent_acme_helios_v1", "correction", None),
        ("chk_acme_1_0", "supports", "ent_acme_helios_v2", "explicit", None),
        ("chk_acme_1_0", "contradicts", "sum_acme_july", "explicit", "jane"),
    }


def test_a_link_takes_the_scope_of_its_ends(manager, backend, two_tenants):
    row, created = manager.add_link(ACME, "ent_acme_helios_owner", "refines", "sum_acme_july")
    assert created and (row["user_id"], row["agent_id"], row["thread_id"]) == ("jane", None, None)
    with backend.session(BOB) as s:
        assert s.raw("SELECT id FROM memory_link WHERE id = :id", {"id": row["id"]}) == []


@pytest.mark.parametrize(
    "who, to_id", [(ACME, "ent_globex_helios_v1"), (BOB, "sum_acme_july"), (GLOBEX, "ent_acme_helios_v2")]
)
def test_a_link_to_a_memory_behind_the_wall_is_refused_and_writes_nothing(manager, backend, two_tenants, who, to_id):
    from_id = "ent_globex_acct" if who is GLOBEX else "ent_acme_helios_owner"
    before = table_digest(backend)
    with pytest.raises(InvalidArgument, match=f"^to_id {to_id!r} is no memory you can see") as refused:
        manager.add_link(who, from_id, "supports", to_id)
    assert refused.value.field == "to_id"
    assert table_digest(backend) == before


def test_adding_a_link_again_returns_the_one_there_and_removing_keeps_the_row(manager, backend, two_tenants):
    first, _ = manager.add_link(ACME, "chk_acme_1_1", "supports", "ent_acme_helios_v2")
    again, created = manager.add_link(ACME, "ent_acme_helios_v2", "is_supported_by", "chk_acme_1_1")
    assert (again["id"], created) == (first["id"], False)
    removed = manager.remove_link(ACME, first["id"])
    assert removed["deleted_at"] is not None
    assert _links(backend, id=first["id"])[0]["deleted_at"] == removed["deleted_at"]
    assert [v.far["id"] for v in manager.memory_links(ACME, "chk_acme_1_1")] == []
    with pytest.raises(NotFound, match="^no live link 'lnk_[0-9a-f]+' you can see$"):
        manager.remove_link(ACME, first["id"])


def test_a_memory_cannot_link_to_itself(manager, two_tenants):
    with pytest.raises(InvalidArgument, match="cannot be linked to itself"):
        manager.add_link(ACME, "chk_acme_1_1", "duplicates", "chk_acme_1_1")


def test_traversal_of_a_cycle_ends_with_each_memory_once(manager, backend, two_tenants):
    ring = ["chk_acme_1_0", "chk_acme_1_1", "chk_acme_2_0", "wfl_acme_eval"]
    for a, b in zip(ring, ring[1:] + ring[:1]):
        manager.add_link(ACME, a, "refines", b)
    now = now_iso()
    with backend.session(ACME, now=now) as s:
        found = traverse.traverse(s, [("knowledge_base_chunk", "chk_acme_1_0")], now, hops=2, limit=20)
    ids = [item.id for item in found[("knowledge_base_chunk", "chk_acme_1_0")]]
    assert len(ids) == len(set(ids)) and "chk_acme_1_0" not in ids
    assert {"chk_acme_1_1", "wfl_acme_eval", "chk_acme_2_0"} <= set(ids)


def test_a_deleted_far_end_is_not_returned(manager, backend, two_tenants):
    with backend.session(replace(ACME, thread=None)) as s:
        s.raw(
            "UPDATE summarization_memory SET deleted_at = :t WHERE id = 'sum_acme_july'",
            {"t": "2026-08-21T00:00:00.000Z"},
        )
    now = now_iso()
    with backend.session(ACME, now=now) as s:
        found = traverse.traverse(s, [("knowledge_base_chunk", "chk_acme_1_0")], now, hops=1, limit=5)
    assert [i.id for i in found[("knowledge_base_chunk", "chk_acme_1_0")]] == ["ent_acme_helios_v2"]
