"""lexical_top: the passages a lexical-only search returns, in its order, without calibrating them.

The promotion gate's duplicate lookup reads passages and needs no calibrated score; lexical_top reads
a few candidates first and the full depth only when folding copies away used them up. Whatever it
reads, its hits are the lexical-only search's, so the gate decides as it did.
"""

from __future__ import annotations

import pytest
from kb_helpers import ACME, add_doc, hashing_manager

from memgate.manager.clock import now_iso
from memgate.manager.kb import search as kb_search

LINE = "Ranger {n} counted the zebra herd at ford {n} before dawn."


@pytest.fixture
def kb(backend):
    kb = hashing_manager(backend)
    for n in range(12):
        add_doc(kb, ACME, f"log {n}", LINE.format(n=n), uri=f"test://log/{n}")
        # copies of the first passages (other case and spacing): folded into the best-ranked copy, so a
        # read of a few candidates runs out and lexical_top must read the full depth
        if n < 8:
            for c in range(3):
                add_doc(kb, ACME, f"copy {n}.{c}", "  " + LINE.format(n=n).upper(), uri=f"test://copy/{n}/{c}")
    add_doc(kb, ACME, "ids", "Call lru_cache_info() or functools.lru_cache to read the zebra counts.", uri="test://ids")
    return kb


@pytest.mark.parametrize(
    "query", ["zebra herd ford ranger dawn", "Ranger 3 counted the zebra herd", "lru_cache", "no such words here"]
)
@pytest.mark.parametrize("limit", [1, 3, 5, 9])
def test_the_hits_are_the_lexical_only_searchs_in_its_order(kb, query, limit):
    now = now_iso()
    with kb.backend.session(ACME, now=now) as s:
        full = kb_search.search(s, kb.embedder, query, now, limit=limit, methods=(kb_search.LEXICAL,))
        top = kb_search.lexical_top(s, query, now, limit=limit)
    assert [h.id for h in top] == [h.id for h in full]
    assert [h.content for h in top] == [h.content for h in full]
    if query != "no such words here":
        assert top, query
    assert all(0 < h.score <= 1 and h.lexical_rank for h in top)
