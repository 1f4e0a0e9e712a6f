"""Ingestion: new, unchanged (a no-op), replaced (in one transaction), scoped, and bad files reported."""

from __future__ import annotations

import pytest
from kb_helpers import ACME, GLOBEX, hashing_manager

from memgate.manager import ChunkSettings
from memgate.manager.errors import InvalidArgument, MemgateError
from memgate.manager.kb import ingest as kb_ingest


@pytest.fixture
def kb(backend):
    return hashing_manager(backend)


def _chunks(backend, tenant="acme"):
    with backend.unwalled_connection() as conn:
        return conn.execute("SELECT document_id, position, content, embedding_model FROM base_knowledge_base_chunk"
                            " WHERE tenant_id = ? ORDER BY document_id, position", (tenant,)).fetchall()


def _fts_rows(backend):
    with backend.unwalled_connection() as conn:
        return conn.execute("SELECT rowid, tenant_id, content FROM base_kb_chunk_fts ORDER BY rowid").fetchall()


def _base_seqs(backend):
    with backend.unwalled_connection() as conn:
        return conn.execute("SELECT seq, tenant_id, content FROM base_knowledge_base_chunk ORDER BY seq").fetchall()


def test_a_new_file_is_parsed_chunked_embedded_and_indexed(kb, backend, tmp_path):
    path = tmp_path / "runbook.md"
    path.write_text("# Flux runbook\n\nRestart the flux capacitor when the zebra alarm fires.\n")
    result = kb.ingest_file(ACME, path, collection="ops")
    assert (result.status, result.title, result.chunks) == ("new", "Flux runbook", 1)
    assert result.tokens > 0
    assert [(c[1], c[3]) for c in _chunks(backend)] == [(0, "hashing-256")]
    assert [tuple(r) for r in _fts_rows(backend)] == [tuple(r) for r in _base_seqs(backend)]


def test_reingesting_an_unchanged_file_is_a_no_op(kb, backend, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Kumquats ripen in winter.\n\nThey keep for two weeks.")
    first = kb.ingest_file(ACME, path)
    before = _base_seqs(backend)
    again = kb.ingest_file(ACME, path)
    assert (again.status, again.document_id, again.chunks) == ("unchanged", first.document_id, 0)
    assert _base_seqs(backend) == before


def test_a_changed_file_replaces_its_chunks_and_bumps_the_document_version(kb, backend, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Kumquats ripen in winter.")
    first = kb.ingest_file(ACME, path)
    path.write_text("Kumquats ripen in late autumn.")
    second = kb.ingest_file(ACME, path)
    assert (second.status, second.document_id) == ("replaced", first.document_id)
    assert [c[2] for c in _chunks(backend)] == ["Kumquats ripen in late autumn."]
    assert [r[2] for r in _fts_rows(backend)] == ["Kumquats ripen in late autumn."]
    with backend.session(ACME) as s:
        assert s.raw("SELECT version FROM knowledge_base_document") == [{"version": 2}]


def test_a_replacement_that_fails_midway_leaves_the_old_chunks_whole(kb, backend, tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("\n\n".join(f"Paragraph {i} about kumquats and zebras." for i in range(3)))
    kb.ingest_file(ACME, path, settings=ChunkSettings(max_tokens=16, overlap_tokens=0))
    before, index_before = _chunks(backend), _fts_rows(backend)
    assert len(before) == 3
    path.write_text("\n\n".join(f"Rewritten paragraph {i}." for i in range(3)))
    # A real failure after the old chunks are deleted and the first new one written:
    # the base table refuses the second new chunk inside the transaction.
    with backend.unwalled_connection() as conn:
        conn.execute("CREATE TRIGGER fail_second BEFORE INSERT ON base_knowledge_base_chunk"
                     " WHEN NEW.position = 1 AND NEW.content LIKE 'Rewritten%'"
                     " BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END")
    with pytest.raises(MemgateError):
        kb.ingest_file(ACME, path, settings=ChunkSettings(max_tokens=16, overlap_tokens=0))
    assert _chunks(backend) == before and _fts_rows(backend) == index_before


def test_other_chunk_settings_or_another_embedder_count_as_a_change(kb, backend, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Kumquats ripen in winter. " * 40)
    kb.ingest_file(ACME, path)
    assert kb.ingest_file(ACME, path, settings=ChunkSettings(max_tokens=64, overlap_tokens=8)).status == "replaced"
    assert kb.ingest_file(ACME, path, settings=ChunkSettings(max_tokens=64, overlap_tokens=8)).status == "unchanged"
    assert hashing_manager(backend).ingest_file(ACME, path, settings=ChunkSettings(max_tokens=64, overlap_tokens=8)).status \
        == "unchanged"
    from memgate.manager import MemoryManager
    from memgate.manager.kb.embed import HashingEmbedder
    other = MemoryManager(backend, embedder=HashingEmbedder(64))
    assert other.ingest_file(ACME, path, settings=ChunkSettings(max_tokens=64, overlap_tokens=8)).status == "replaced"


def test_the_same_file_in_two_tenants_or_two_scopes_is_two_documents(kb, backend, tmp_path):
    path = tmp_path / "shared.txt"
    path.write_text("The same words.")
    ids = {kb.ingest_file(ACME, path).document_id, kb.ingest_file(GLOBEX, path).document_id,
           kb.ingest_file(ACME, path, user_id="jane").document_id}
    assert len(ids) == 3


def test_a_file_that_cannot_be_parsed_raises_a_clear_error_and_writes_nothing(kb, backend, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(InvalidArgument) as err:
        kb.ingest_file(ACME, path)
    assert err.value.with_hint() == ("bad.txt is not valid UTF-8 (bad byte at offset 0). "
                                     "Re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8.")
    assert _chunks(backend) == []
