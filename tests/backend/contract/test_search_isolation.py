"""Search ranks only the caller's tenant's chunks: the wall applies before ranking, not after a global top-k."""

from __future__ import annotations

import pytest
from backend_helpers import operator_rows
from kb_helpers import ACME, GLOBEX, add_doc, hashing_manager

from memgate.manager.errors import AccessDenied


@pytest.fixture
def kb(backend):
    return hashing_manager(backend)


def test_acme_never_gets_a_globex_chunk_even_when_globex_holds_the_only_exact_match(kb):
    add_doc(kb, GLOBEX, "Globex secrets", "The launch codeword is xylophone-tangerine.")
    add_doc(kb, ACME, "Acme notes", "Quarterly planning for the widget line.")
    for methods in (("lexical",), ("vector",), ("lexical", "vector")):
        hits = kb.search_chunks(ACME, "xylophone tangerine codeword", methods=methods)
        assert all(h.id.startswith("chk_") for h in hits)
        assert {h.title for h in hits} <= {"Acme notes"}, methods
    out = kb.search_memory(ACME, "xylophone tangerine codeword")
    assert "launch codeword" not in out.text and "Globex" not in out.text
    assert kb.search_chunks(GLOBEX, "xylophone tangerine codeword")[0].title == "Globex secrets"


def test_acme_top_k_is_full_when_globex_holds_many_better_matches(kb):
    # 60 globex chunks match "zebra" far better than any acme chunk; a global top-k
    # filtered afterwards would leave acme with nothing.
    for i in range(60):
        add_doc(kb, GLOBEX, f"g{i}", "zebra zebra zebra zebra", uri=f"test://g/{i}")
    for i in range(5):
        add_doc(
            kb, ACME, f"a{i}", f"One zebra among many other words in acme document number {i}.", uri=f"test://a/{i}"
        )
    for methods in (("lexical",), ("vector",), ("lexical", "vector")):
        hits = kb.search_chunks(ACME, "zebra", limit=5, methods=methods)
        assert sorted(h.title for h in hits) == [f"a{i}" for i in range(5)], methods


def test_acme_cannot_write_chunks_into_globex(kb, backend):
    with (
        backend.session(ACME) as s,
        pytest.raises(AccessDenied, match="^write refused: the row belongs to another tenant$"),
    ):
        s.insert(
            "knowledge_base_chunk",
            {"id": "chk_x", "tenant_id": "globex", "document_id": "d", "position": 0, "content": "zebra"},
        )
    assert operator_rows(backend, "knowledge_base_chunk") == []
    assert kb.search_chunks(GLOBEX, "zebra", limit=5) == []


def test_user_scoped_documents_are_found_only_by_that_user(kb):
    from memgate.manager.identity import Identity

    add_doc(kb, ACME, "Jane's notes", "zebra notes for jane only", user_id="jane")
    bob = Identity(tenant="acme", user="bob", agent="research-assistant")
    assert [h.title for h in kb.search_chunks(ACME, "zebra")] == ["Jane's notes"]
    assert kb.search_chunks(bob, "zebra") == []
