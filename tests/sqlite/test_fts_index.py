"""The SQLite lexical index stays in step with the chunk table: on ingest, on replacement, on failure."""

from __future__ import annotations

import pytest
from kb_helpers import ACME, hashing_manager

from memgate.manager import ChunkSettings, InvalidArgument


@pytest.fixture
def kb(backend):
    return hashing_manager(backend)


def _chunks(backend):
    with backend.unwalled_connection() as conn:
        return conn.execute("SELECT document_id, position, content FROM base_knowledge_base_chunk"
                            " ORDER BY document_id, position").fetchall()


def _fts_rows(backend):
    with backend.unwalled_connection() as conn:
        return conn.execute("SELECT rowid, tenant_id, content FROM base_kb_chunk_fts ORDER BY rowid").fetchall()


def _base_seqs(backend):
    with backend.unwalled_connection() as conn:
        return conn.execute("SELECT seq, tenant_id, content FROM base_knowledge_base_chunk ORDER BY seq").fetchall()


def test_the_index_holds_exactly_the_chunks_after_a_new_and_a_changed_file(kb, backend, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Kumquats ripen in winter.\n\nThey keep for two weeks.")
    kb.ingest_file(ACME, path)
    assert [tuple(r) for r in _fts_rows(backend)] == [tuple(r) for r in _base_seqs(backend)]
    path.write_text("Kumquats ripen in late autumn.")
    kb.ingest_file(ACME, path)
    assert [r[2] for r in _fts_rows(backend)] == ["Kumquats ripen in late autumn."]
    assert [tuple(r) for r in _fts_rows(backend)] == [tuple(r) for r in _base_seqs(backend)]


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
    with pytest.raises(InvalidArgument, match="^the record is incomplete or malformed$"):
        kb.ingest_file(ACME, path, settings=ChunkSettings(max_tokens=16, overlap_tokens=0))
    assert _chunks(backend) == before and _fts_rows(backend) == index_before
