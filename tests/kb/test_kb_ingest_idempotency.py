"""Ingest's "unchanged" check: decided before any write, and again inside the write transaction."""

from __future__ import annotations

from backend_helpers import open_sqlite, operator_rows, table_digest
from kb_helpers import ACME, hashing_manager

from memgate.manager import ChunkSettings, DatabaseSettings, open_backend


def test_an_unchanged_file_is_recognised_without_the_write_lock(backend, sqlite_path, tmp_path):
    # The check runs before any write: while another process holds the write lock,
    # re-ingesting an unchanged file answers "unchanged" at once instead of waiting on it.
    path = tmp_path / "notes.txt"
    path.write_text("Kumquats ripen in winter.")
    first = hashing_manager(backend).ingest_file(ACME, path)
    writer, impatient = open_sqlite(sqlite_path), open_backend(DatabaseSettings(path=sqlite_path, busy_timeout_ms=100))
    try:
        with writer.session(ACME) as s, s.transaction():
            again = hashing_manager(impatient).ingest_file(ACME, path)
    finally:
        writer.close()
        impatient.close()
    assert (again.status, again.document_id) == ("unchanged", first.document_id)


def test_text_ingested_twice_is_stored_once(backend):
    # ingest_text has no early check: the one inside the write transaction decides.
    kb = hashing_manager(backend)
    first = kb.ingest_text(ACME, title="t", text="Kumquats ripen in winter.", source_uri="test://t")
    before = table_digest(backend)
    again = kb.ingest_text(ACME, title="t", text="Kumquats ripen in winter.", source_uri="test://t")
    assert (first.status, again.status, again.document_id) == ("new", "unchanged", first.document_id)
    assert table_digest(backend) == before
    assert len(operator_rows(backend, "knowledge_base_document")) == 1


def test_other_chunk_settings_are_a_change_for_text_too(backend):
    kb = hashing_manager(backend)
    kb.ingest_text(ACME, title="t", text="Kumquats ripen in winter.", source_uri="test://t")
    again = kb.ingest_text(
        ACME,
        title="t",
        text="Kumquats ripen in winter.",
        source_uri="test://t",
        settings=ChunkSettings(max_tokens=64, overlap_tokens=8),
    )
    assert again.status == "replaced"
