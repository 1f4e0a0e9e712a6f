"""The database enforces tenancy: even unfiltered SQL under one tenant sees only that tenant."""

from __future__ import annotations

import pytest
from backend_helpers import operator_rows, tenant_counts

from memgate.manager import AccessDenied, Identity

TABLES = {
    "guideline_memory",
    "persona_memory",
    "toolbox_memory",
    "entity_memory",
    "workflow_memory",
    "knowledge_base_document",
    "knowledge_base_chunk",
    "conversation_memory",
    "summarization_memory",
    "memory_store",
    "memory_file",
    "mcp_call_log",
    "image_memory",
}


def test_every_table_is_under_the_tenant_wall(backend):
    assert set(backend.tables()) >= TABLES


def test_unfiltered_selects_under_acme_return_no_globex_row_for_every_table(backend, two_tenants):
    acme, _ = two_tenants
    assert operator_rows(backend, "entity_memory", "WHERE tenant_id = 'globex'")  # the data exists
    with backend.session(acme) as s:
        for table in backend.tables():
            rows = s.raw(f"SELECT * FROM {table}")
            assert {r["tenant_id"] for r in rows} <= {"acme"}, table
            assert s.raw(f"SELECT count(*) AS n FROM {table} WHERE tenant_id = 'globex'") == [{"n": 0}], table


def test_acme_sees_its_own_rows(backend, two_tenants):
    acme, _ = two_tenants
    with backend.session(acme) as s:
        assert s.raw("SELECT count(*) AS n FROM entity_memory")[0]["n"] == 3


def test_a_write_with_a_foreign_tenant_id_is_rejected_and_changes_nothing(backend, two_tenants):
    acme, _ = two_tenants
    before = tenant_counts(backend)
    with backend.session(acme) as s:
        with pytest.raises(AccessDenied, match="belongs to another tenant"):
            s.insert(
                "entity_memory",
                {
                    "id": "ent_forged",
                    "tenant_id": "globex",
                    "subject": "model:helios-rag",
                    "predicate": "beir_ndcg10",
                    "content": "0.99",
                },
            )
        with pytest.raises(AccessDenied, match="^write refused: the row belongs to another tenant$"):
            s.raw("UPDATE entity_memory SET tenant_id = 'globex' WHERE id = 'ent_acme_helios_v2'")
    assert tenant_counts(backend) == before


def test_a_batch_insert_with_one_foreign_row_is_rejected_whole_and_changes_nothing(backend, two_tenants):
    acme, _ = two_tenants
    before = tenant_counts(backend)
    rows = [
        {
            "id": f"chk_batch_{i}",
            "tenant_id": tenant,
            "document_id": "doc_acme_1",
            "position": 50 + i,
            "content": f"batch row {i}",
        }
        for i, tenant in enumerate(("acme", "acme", "globex"))
    ]
    with backend.session(acme) as s:
        with pytest.raises(AccessDenied, match="^write refused: the row belongs to another tenant$"), s.transaction():
            s.insert_many("knowledge_base_chunk", rows)
    assert tenant_counts(backend) == before
    with backend.session(acme) as s, s.transaction():
        s.insert_many("knowledge_base_chunk", rows[:2])
    assert [
        r["id"] for r in operator_rows(backend, "knowledge_base_chunk", "WHERE id LIKE 'chk_batch_%' ORDER BY id")
    ] == ["chk_batch_0", "chk_batch_1"]


def test_updates_and_deletes_under_acme_cannot_touch_globex_rows(backend, two_tenants):
    acme, _ = two_tenants
    with backend.session(acme) as s:
        s.raw("UPDATE entity_memory SET valid_until = '2000-01-01T00:00:00.000Z' WHERE id = 'ent_globex_helios_v1'")
        s.raw("DELETE FROM entity_memory WHERE tenant_id = 'globex'")
        s.raw("DELETE FROM knowledge_base_chunk")
    [row] = operator_rows(backend, "entity_memory", "WHERE id = 'ent_globex_helios_v1'")
    assert row["valid_until"] is None
    assert {r["tenant_id"] for r in operator_rows(backend, "knowledge_base_chunk")} == {"globex"}


def test_the_context_of_one_session_is_gone_in_the_next(backend, two_tenants):
    acme, _ = two_tenants
    with backend.session(acme) as s:
        assert s.raw("SELECT count(*) AS n FROM entity_memory") == [{"n": 3}]
    with backend.session(Identity(tenant="initech")) as s:
        assert s.raw("SELECT count(*) AS n FROM entity_memory") == [{"n": 0}]
