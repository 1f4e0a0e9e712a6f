"""Hybrid search on every backend: both legs find a document right after it is ingested, a changed
document replaces its chunks, and the legs honour the collection filter."""

from __future__ import annotations

import pytest
from kb_helpers import ACME, add_doc, hashing_manager

from memgate.manager.backend.base import ChunkFilters

WHERE = ChunkFilters(now="2099-01-01T00:00:00.000Z")


@pytest.fixture
def kb(backend):
    return hashing_manager(backend)


def test_both_legs_find_a_document_right_after_its_ingest(kb, backend):
    add_doc(kb, ACME, "vpd", "Virtual private database policies add a predicate to every statement.")
    add_doc(kb, ACME, "other", "Bananas are yellow and grow in bunches.")
    with backend.session(ACME) as s:
        lexical = s.kb_lexical("predicate policies", 5, WHERE)
        vector = s.kb_vector(kb.embedder.embed(["predicate policies"])[0], kb.embedder.name, 5, WHERE)
    assert lexical and vector
    hits = kb.search_chunks(ACME, "predicate policies", limit=1)
    assert "predicate" in hits[0].content


def test_words_that_are_query_syntax_are_plain_words(kb, backend):
    add_doc(kb, ACME, "near", "Stay near the river and not the road.")
    with backend.session(ACME) as s:
        for query in ("near", "NOT", "river AND road", "{river}", "river\\", "river*", "a-b; c|d"):
            s.kb_lexical(query, 5, WHERE)  # never a syntax error
        assert s.kb_lexical("near", 5, WHERE)


def test_a_changed_document_replaces_its_chunks(kb, backend):
    add_doc(kb, ACME, "doc", "The first text mentions aardvarks.", uri="test://doc")
    add_doc(kb, ACME, "doc", "The second text mentions zebras.", uri="test://doc")
    assert kb.search_chunks(ACME, "aardvarks", methods=("lexical",)) == []
    assert kb.search_chunks(ACME, "zebras", methods=("lexical",))


def test_the_collection_filter_applies_inside_each_leg(kb, backend):
    add_doc(kb, ACME, "a", "Lighthouses guide ships.", collection="coast")
    add_doc(kb, ACME, "b", "Lighthouses are tall.", collection="towers")
    hits = kb.search_chunks(ACME, "lighthouses", collection="coast", limit=5)
    assert {h.collection for h in hits} == {"coast"}
