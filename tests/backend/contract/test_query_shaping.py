"""execute_query's connection on every backend: the reviewed catalog, exact row caps, clipped text,
LOB and vector cells that are never read."""

from __future__ import annotations

import numpy as np
import pytest
from query_helpers import REVIEWED

from memgate.manager import ACME, QueryRejected
from memgate.manager.backend.base import BinaryLength
from memgate.manager.output.cells import shape_cell

NOW = "2027-01-01T00:00:00.000Z"


def _add_chunks(backend, n: int, text: str = "chunk") -> None:
    with backend.session(ACME) as s, s.transaction():
        s.insert(
            "knowledge_base_document",
            {
                "id": "doc_big",
                "tenant_id": "acme",
                "title": "big",
                "source_uri": "test://big",
                "content": "SECRETTEXT " * 5000,
            },
        )
        for i in range(n):
            s.insert(
                "knowledge_base_chunk",
                {
                    "id": f"chk_{i}",
                    "tenant_id": "acme",
                    "document_id": "doc_big",
                    "position": i,
                    "content": f"{text} {i}",
                    "embedding": np.full(8, 0.5, dtype=np.float32),
                    "embedding_model": "test-8",
                },
            )


def test_the_catalog_holds_exactly_the_reviewed_views(backend):
    catalog = backend.query_catalog()
    assert sorted(catalog) == sorted(REVIEWED)
    assert "status" in {c for c, _ in catalog["entity_memory_history"]}
    assert "tenant_id" in {c for c, _ in catalog["entity_memory"]}


@pytest.mark.parametrize("stored,asked,shown,more", [(5, 5, 5, False), (6, 5, 5, True), (3, 5, 3, False)])
def test_max_rows_is_exact_and_more_rows_exist_is_told(backend, two_tenants, stored, asked, shown, more):
    _add_chunks(backend, stored)
    result = backend.run_readonly_query(
        ACME, "SELECT id FROM knowledge_base_chunk WHERE document_id = 'doc_big' ORDER BY position", asked, 10.0, NOW
    )
    assert (len(result.rows), result.truncated) == (shown, more)


def test_text_arrives_cut_to_one_more_than_the_cell_width(backend, two_tenants):
    _add_chunks(backend, 1, text="y" * 900)
    result = backend.run_readonly_query(
        ACME, "SELECT content FROM knowledge_base_chunk WHERE id = 'chk_0'", 5, 10.0, NOW, max_chars=50
    )
    assert result.rows == [("y" * 51,)]


def test_a_document_lob_is_a_marker_and_its_text_is_never_returned(backend, two_tenants):
    _add_chunks(backend, 1)
    result = backend.run_readonly_query(
        ACME, "SELECT content FROM knowledge_base_document WHERE id = 'doc_big'", 5, 10.0, NOW
    )
    [(value,)] = result.rows
    assert "SECRETTEXT" not in repr(value)
    assert shape_cell(value, result.declared_types[0]) == "<LOB>"


def test_a_vector_is_its_size_only(backend, two_tenants):
    _add_chunks(backend, 1)
    result = backend.run_readonly_query(
        ACME, "SELECT embedding FROM knowledge_base_chunk WHERE id = 'chk_0'", 5, 10.0, NOW
    )
    [(value,)] = result.rows
    assert isinstance(value, BinaryLength)
    assert shape_cell(value, result.declared_types[0]) == "<VECTOR(8)>"


def test_a_view_off_the_list_is_refused_by_the_database_too(backend, two_tenants):
    # admission would refuse this first; here it goes straight to the query connection
    with pytest.raises(QueryRejected, match="rule (table|wall)"):
        backend.run_readonly_query(ACME, "SELECT * FROM mcp_call_log", 5, 10.0, NOW)


def test_another_tenants_rows_never_reach_a_query(backend, two_tenants):
    result = backend.run_readonly_query(ACME, "SELECT DISTINCT tenant_id FROM entity_memory_history", 50, 10.0, NOW)
    assert result.rows == [("acme",)]


def test_the_manager_runs_execute_query_through_admission_on_every_backend(manager, two_tenants):
    out = manager.execute_query(ACME, "SELECT subject, content FROM entity_memory ORDER BY subject")
    assert "0.78" in out.text and "0.92" not in out.text
    with pytest.raises(QueryRejected, match="rule table"):
        manager.execute_query(ACME, "SELECT * FROM toolbox_memory")
