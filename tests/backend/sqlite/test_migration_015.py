"""Migration 015 on a file from before it: each tenant's lexical index is rebuilt in place so identifiers stay whole."""

from __future__ import annotations

import pytest
from backend_helpers import open_sqlite
from kb_helpers import ACME, GLOBEX, add_doc, hashing_manager

from memgate.manager import SchemaMismatch
from memgate.manager.backend.sql_files import load_sql
from memgate.manager.backend.sqlite import lexical, schema

DOCS = {"docstring": "The __doc__ attribute of a partial is now kept.", "docs": "The docs were rebuilt; doc pages."}
#: the template's tokenizer before migration 015
OLD_TOKENIZER = "tokenize = 'porter unicode61 remove_diacritics 2'"


def _database_before_015(path) -> None:
    """A file as memgate made it before 015: indexes from template version 1, no template_version column."""
    backend = open_sqlite(path)
    backend.migrate()
    kb = hashing_manager(backend)
    for identity in (ACME, GLOBEX):
        for title, text in DOCS.items():
            add_doc(kb, identity, title, text)
    with backend.unwalled_connection() as conn:
        conn.execute("BEGIN IMMEDIATE")
        template = load_sql("sqlite", "kb_lexical_index")
        old = template.replace("tokenize = 'porter unicode61 remove_diacritics 2 tokenchars _'", OLD_TOKENIZER)
        assert old != template
        for tenant, slot in conn.execute("SELECT tenant_id, slot FROM base_kb_lexical_index").fetchall():
            conn.execute(f"DROP VIEW kb_chunk_match_{slot}")
            for event in ("insert", "update", "delete"):
                conn.execute(f"DROP TRIGGER base_knowledge_base_chunk__fts_{slot}_{event}")
            conn.execute(f"DROP TABLE base_kb_fts_{slot}")
            schema.run_script(conn, old.format(slot=slot, tenant=f"'{tenant}'"))
        conn.execute("ALTER TABLE base_kb_lexical_index DROP COLUMN template_version")
        conn.execute("DELETE FROM memgate_schema WHERE version = 15")
        conn.execute("COMMIT")
    backend.close()


def _tokenizers(conn) -> set[str]:
    rows = conn.execute("SELECT sql FROM sqlite_master WHERE name LIKE 'base_kb_fts_%' AND type = 'table'")
    return {r[0].split("tokenize = ", 1)[1] for r in rows if "tokenize" in r[0]}


def test_an_old_file_is_upgraded_in_place_and_an_identifier_is_one_term_again(sqlite_path):
    _database_before_015(sqlite_path)
    backend = open_sqlite(sqlite_path)
    try:
        with pytest.raises(SchemaMismatch, match="lacks migration\\(s\\) 015|needs version [0-9]{2,}"):
            backend.check_schema()
        with backend.unwalled_connection() as conn:
            assert _tokenizers(conn) == {"'porter unicode61 remove_diacritics 2')"}
            slots_before = dict(conn.execute("SELECT tenant_id, slot FROM base_kb_lexical_index").fetchall())
        backend.migrate()
        backend.check_schema()
        with backend.unwalled_connection() as conn:
            assert _tokenizers(conn) == {"'porter unicode61 remove_diacritics 2 tokenchars _')"}
            rows = conn.execute("SELECT tenant_id, slot, template_version FROM base_kb_lexical_index").fetchall()
            assert {t: s for t, s, _ in rows} == slots_before  # same slots: rebuilt in place
            assert {v for _, _, v in rows} == {lexical.TEMPLATE_VERSION}
            for slot in slots_before.values():  # every chunk is indexed again, from the chunk table
                assert conn.execute(f"SELECT count(*) FROM base_kb_fts_{slot}_docsize").fetchone()[0] == 2
        kb = hashing_manager(backend)
        for identity in (ACME, GLOBEX):
            assert [h.title for h in kb.search_chunks(identity, "__doc__", methods=("lexical",))] == ["docstring"]
            assert {h.title for h in kb.search_chunks(identity, "docs", methods=("lexical",))} == {"docs"}
        add_doc(kb, ACME, "later", "A later note about __doc__ strings.")  # the rebuilt triggers index new chunks
        assert {h.title for h in kb.search_chunks(ACME, "__doc__", methods=("lexical",))} == {"docstring", "later"}
    finally:
        backend.close()


def test_a_new_tenant_on_an_upgraded_file_gets_the_current_template(backend):
    backend.migrate()
    kb = hashing_manager(backend)
    add_doc(kb, ACME, "docstring", DOCS["docstring"])
    with backend.unwalled_connection() as conn:
        assert [tuple(r) for r in conn.execute("SELECT template_version FROM base_kb_lexical_index")] == [
            (lexical.TEMPLATE_VERSION,)
        ]
