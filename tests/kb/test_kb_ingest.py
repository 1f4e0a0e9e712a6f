"""Ingestion: new, unchanged (a no-op), replaced (in one transaction), scoped, and bad files reported."""

from __future__ import annotations

import pytest
from backend_helpers import operator_rows
from kb_helpers import ACME, GLOBEX, hashing_manager

from memgate.manager import ChunkSettings
from memgate.manager.errors import InvalidArgument


@pytest.fixture
def kb(backend):
    return hashing_manager(backend)


def _chunks(backend, tenant="acme"):
    rows = operator_rows(
        backend, "knowledge_base_chunk", "WHERE tenant_id = :t ORDER BY document_id, position", {"t": tenant}
    )
    return [(r["document_id"], r["position"], r["content"], r["embedding_model"]) for r in rows]


def _chunk_rows(backend):
    return [
        (r["id"], r["tenant_id"], r["content"]) for r in operator_rows(backend, "knowledge_base_chunk", "ORDER BY id")
    ]


def test_a_new_file_is_parsed_chunked_embedded_and_indexed(kb, backend, tmp_path):
    path = tmp_path / "runbook.md"
    path.write_text("# Flux runbook\n\nRestart the flux capacitor when the zebra alarm fires.\n")
    result = kb.ingest_file(ACME, path, collection="ops")
    assert (result.status, result.title, result.chunks) == ("new", "Flux runbook", 1)
    assert result.tokens > 0
    assert [(c[1], c[3]) for c in _chunks(backend)] == [(0, "hashing-256")]


def test_reingesting_an_unchanged_file_is_a_no_op(kb, backend, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Kumquats ripen in winter.\n\nThey keep for two weeks.")
    first = kb.ingest_file(ACME, path)
    before = _chunk_rows(backend)
    again = kb.ingest_file(ACME, path)
    assert (again.status, again.document_id, again.chunks) == ("unchanged", first.document_id, 0)
    assert _chunk_rows(backend) == before


def test_a_changed_file_replaces_its_chunks_and_bumps_the_document_version(kb, backend, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Kumquats ripen in winter.")
    first = kb.ingest_file(ACME, path)
    path.write_text("Kumquats ripen in late autumn.")
    second = kb.ingest_file(ACME, path)
    assert (second.status, second.document_id) == ("replaced", first.document_id)
    assert [c[2] for c in _chunks(backend)] == ["Kumquats ripen in late autumn."]
    with backend.session(ACME) as s:
        assert s.raw("SELECT version FROM knowledge_base_document") == [{"version": 2}]


def test_other_chunk_settings_or_another_embedder_count_as_a_change(kb, backend, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Kumquats ripen in winter. " * 40)
    kb.ingest_file(ACME, path)
    assert kb.ingest_file(ACME, path, settings=ChunkSettings(max_tokens=64, overlap_tokens=8)).status == "replaced"
    assert kb.ingest_file(ACME, path, settings=ChunkSettings(max_tokens=64, overlap_tokens=8)).status == "unchanged"
    assert (
        hashing_manager(backend).ingest_file(ACME, path, settings=ChunkSettings(max_tokens=64, overlap_tokens=8)).status
        == "unchanged"
    )
    from memgate.manager import MemoryManager
    from memgate.manager.kb.embed import HashingEmbedder

    other = MemoryManager(backend, embedder=HashingEmbedder(64))
    assert other.ingest_file(ACME, path, settings=ChunkSettings(max_tokens=64, overlap_tokens=8)).status == "replaced"


def test_the_same_file_in_two_tenants_or_two_scopes_is_two_documents(kb, backend, tmp_path):
    path = tmp_path / "shared.txt"
    path.write_text("The same words.")
    ids = {
        kb.ingest_file(ACME, path).document_id,
        kb.ingest_file(GLOBEX, path).document_id,
        kb.ingest_file(ACME, path, user_id="jane").document_id,
    }
    assert len(ids) == 3


def test_a_file_that_cannot_be_parsed_raises_a_clear_error_and_writes_nothing(kb, backend, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(InvalidArgument, match="^bad.txt is not valid UTF-8") as err:
        kb.ingest_file(ACME, path)
    assert err.value.with_hint() == (
        "bad.txt is not valid UTF-8 (bad byte at offset 0). Re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8."
    )
    assert _chunks(backend) == []
