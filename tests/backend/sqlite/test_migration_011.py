"""Migration 011 on a file from before it: the shared FTS5 index becomes one index per tenant, search still finds everything."""

from __future__ import annotations

import pytest
from backend_helpers import open_sqlite, sqlite_file_with
from kb_helpers import ACME, GLOBEX, hashing_manager

from memgate.manager import SchemaMismatch
from memgate.manager.kb.embed import HashingEmbedder

DOCS = {
    "acme": ["Kumquats ripen in winter.", "The zebra crossing is repainted in May."],
    "globex": ["Kumquat jam needs lemon.", "Server room keys are at the desk."],
}


def _database_before_011(path) -> None:
    """A file as memgate made it before migration 011: the migrations before it, chunks in the shared index."""
    # migrations after 011 (015 alters its table) came later
    conn, context = sqlite_file_with(path, lambda version: version < 11)
    embedder = HashingEmbedder(256)
    for identity in (ACME, GLOBEX):
        context.bind(identity)
        tenant = identity.tenant
        conn.execute(
            "INSERT INTO knowledge_base_document (id, tenant_id, collection, title, source_uri, mime_type,"
            " content_hash, token_count, content, metadata_json, version, valid_from)"
            " VALUES (?, ?, 'default', 'notes', ?, 'text/plain', 'h', 10, ?, '{}', 1, '2026-01-01T00:00:00.000Z')",
            (f"doc_{tenant}", tenant, f"test://{tenant}/notes", " ".join(DOCS[tenant])),
        )
        for position, text in enumerate(DOCS[tenant]):
            conn.execute(
                "INSERT INTO knowledge_base_chunk (id, tenant_id, document_id, position, content, embedding,"
                " embedding_model, valid_from) VALUES (?, ?, ?, ?, ?, ?, ?, '2026-01-01T00:00:00.000Z')",
                (
                    f"chk_{tenant}_{position}",
                    tenant,
                    f"doc_{tenant}",
                    position,
                    text,
                    embedder.embed([text])[0].astype("<f4").tobytes(),
                    embedder.name,
                ),
            )
    assert conn.execute("SELECT count(*) FROM base_kb_chunk_fts").fetchone()[0] == 4
    conn.close()


def test_an_old_file_is_upgraded_and_search_still_finds_its_chunks(sqlite_path):
    _database_before_011(sqlite_path)
    backend = open_sqlite(sqlite_path)
    try:
        with pytest.raises(SchemaMismatch, match="lacks migration\\(s\\) 011|needs version [0-9]{2,}"):
            backend.check_schema()
        backend.migrate()
        backend.check_schema()
        with backend.unwalled_connection() as conn:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            assert "base_kb_chunk_fts" not in tables and "base_kb_chunk_fts_content" not in tables
            slots = dict(conn.execute("SELECT tenant_id, slot FROM base_kb_lexical_index").fetchall())
            assert sorted(slots) == ["acme", "globex"]
            for tenant, slot in slots.items():
                assert f"base_kb_fts_{slot}_content" not in tables  # external content: text stored once
                indexed = conn.execute(
                    f"SELECT c.id FROM base_kb_fts_{slot}_docsize d"
                    " JOIN base_knowledge_base_chunk c ON c.seq = d.id ORDER BY c.id"
                ).fetchall()
                assert [r[0] for r in indexed] == [f"chk_{tenant}_0", f"chk_{tenant}_1"]
            assert dict(conn.execute("SELECT tenant_id, generation FROM base_kb_generation").fetchall()) == {
                "acme": 1,
                "globex": 1,
            }
        kb = hashing_manager(backend)
        for identity, expected in ((ACME, "chk_acme_0"), (GLOBEX, "chk_globex_0")):
            for methods in (("lexical",), ("vector",), ("lexical", "vector")):
                hits = kb.search_chunks(identity, "kumquats kumquat", methods=methods, limit=5)
                assert hits[0].id == expected, methods
                assert all(h.id.startswith(f"chk_{identity.tenant}_") for h in hits)
        assert [h.id for h in kb.search_chunks(ACME, "zebra crossing", methods=("lexical",))] == ["chk_acme_1"]
    finally:
        backend.close()
