"""The tenant index's word counts (Session.kb_term_stats) on SQLite: its own, read as the index reads words."""

from __future__ import annotations

from kb_helpers import ACME, GLOBEX, add_doc, hashing_manager

from memgate.manager.backend.base import TermStats


def _doc_id(kb, identity, title):
    with kb.backend.session(identity) as s:
        return s.raw("SELECT id FROM knowledge_base_document WHERE title = ?", (title,))[0]["id"]


def test_the_counts_are_the_bound_tenants_own(backend):
    kb = hashing_manager(backend)
    add_doc(kb, GLOBEX, "g", "zebra zebra giraffe")
    add_doc(kb, ACME, "a", "zebra crossing")
    with backend.session(ACME) as s:
        assert s.kb_term_stats(["zebra", "crossing", "giraffe"]) == TermStats(
            chunks=1, holding={"zebra": 1, "crossing": 1, "giraffe": 0}
        )
    with backend.session(GLOBEX) as s:  # the same pooled connection, pointed at globex's index
        assert s.kb_term_stats(["zebra", "crossing", "giraffe"]) == TermStats(
            chunks=1, holding={"zebra": 1, "crossing": 0, "giraffe": 1}
        )
    with backend.session(ACME) as s:
        assert [r["term"] for r in s.raw("SELECT term FROM kb_chunk_vocab ORDER BY term")] == ["cross", "zebra"]


def test_words_are_read_as_the_index_reads_them(backend):
    kb = hashing_manager(backend)
    add_doc(kb, ACME, "a", "Zebras were crossing the roads.")
    add_doc(kb, ACME, "b", "A zebra crossing and a lru_cache.")
    with backend.session(ACME) as s:
        stats = s.kb_term_stats(["zebra", "crossings", "road", "lru_cache", "lru"])
    # porter stems, identifiers whole (tokenchars _): "lru" alone is no term of the index
    assert stats.holding == {"zebra": 2, "crossings": 2, "road": 1, "lru_cache": 1, "lru": 0}
    assert stats.chunks == 2


def test_a_document_left_out_is_not_counted(backend):
    kb = hashing_manager(backend)
    add_doc(kb, ACME, "a", "zebra crossing")
    add_doc(kb, ACME, "b", "zebra stripes")
    with backend.session(ACME) as s:
        stats = s.kb_term_stats(["zebra", "stripes", "crossing"], exclude_document=_doc_id(kb, ACME, "b"))
    assert stats == TermStats(chunks=1, holding={"zebra": 1, "stripes": 0, "crossing": 1})


def test_no_words_and_an_empty_index(backend):
    with backend.session(ACME) as s:
        assert s.kb_term_stats([]) == TermStats(chunks=0, holding={})
        assert s.kb_term_stats(["zebra"]) == TermStats(chunks=0, holding={"zebra": 0})
