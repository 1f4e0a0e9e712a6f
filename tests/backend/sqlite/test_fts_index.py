"""The SQLite lexical index stays in step with the chunk table: on ingest, on replacement, on failure."""

from __future__ import annotations

import numpy as np
import pytest
from kb_helpers import ACME, hashing_manager

from memgate.manager import ChunkSettings, InvalidArgument


@pytest.fixture
def kb(backend):
    return hashing_manager(backend)


def _chunks(backend):
    with backend.unwalled_connection() as conn:
        return conn.execute(
            "SELECT document_id, position, content FROM base_knowledge_base_chunk ORDER BY document_id, position"
        ).fetchall()


def _fts_rows(backend):
    """(rowid, tenant, text) of every row a tenant's index holds, after checking that its postings are
    exactly those of the chunk's current text (an external-content index stores no text of its own,
    so a stale row would show only as stale terms)."""
    rows = []
    with backend.unwalled_connection() as conn:
        for tenant, slot in conn.execute("SELECT tenant_id, slot FROM base_kb_lexical_index ORDER BY slot").fetchall():
            fts = f"base_kb_fts_{slot}"
            conn.execute(
                "CREATE VIRTUAL TABLE temp.reference USING fts5(content,"
                " tokenize = 'porter unicode61 remove_diacritics 2')"
            )
            conn.execute(
                "INSERT INTO temp.reference (rowid, content) SELECT d.id, c.content"
                f" FROM {fts}_docsize d JOIN base_knowledge_base_chunk c ON c.seq = d.id"
            )
            conn.execute(f"CREATE VIRTUAL TABLE temp.indexed_terms USING fts5vocab(main, {fts}, instance)")
            conn.execute("CREATE VIRTUAL TABLE temp.reference_terms USING fts5vocab(temp, reference, instance)")
            indexed = conn.execute("SELECT term, doc, offset FROM temp.indexed_terms ORDER BY 2, 3").fetchall()
            assert (
                indexed == conn.execute("SELECT term, doc, offset FROM temp.reference_terms ORDER BY 2, 3").fetchall()
            )
            for name in ("indexed_terms", "reference_terms", "reference"):
                conn.execute(f"DROP TABLE temp.{name}")
            rows += conn.execute(
                f"SELECT d.id, c.tenant_id, c.content FROM {fts}_docsize d"
                " JOIN base_knowledge_base_chunk c ON c.seq = d.id ORDER BY d.id"
            ).fetchall()
    return rows


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
        conn.execute(
            "CREATE TRIGGER fail_second BEFORE INSERT ON base_knowledge_base_chunk"
            " WHEN NEW.position = 1 AND NEW.content LIKE 'Rewritten%'"
            " BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END"
        )
    with pytest.raises(InvalidArgument, match="^the record is incomplete or malformed$"):
        kb.ingest_file(ACME, path, settings=ChunkSettings(max_tokens=16, overlap_tokens=0))
    assert _chunks(backend) == before and _fts_rows(backend) == index_before


def test_an_embedding_update_leaves_the_index_as_it_was(kb, backend, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Kumquats ripen in winter.\n\nThey keep for two weeks.")
    kb.ingest_file(ACME, path)
    before = _fts_rows(backend)
    with backend.session(ACME) as s:
        for row in s.raw("SELECT seq FROM knowledge_base_chunk"):
            s.execute("kb_chunk_set_embedding", seq=row["seq"], embedding=np.ones(4, dtype=np.float32), model="other")
        assert len(s.raw("SELECT seq FROM kb_chunk_match WHERE fts MATCH 'kumquats'")) == 1
    assert [tuple(r) for r in _fts_rows(backend)] == [tuple(r) for r in before] and len(before) == 1
