"""Fusion in the database (Oracle's kb_hybrid statement) ranks as the Python fusion of the two legs does.

SQLite has no such statement (its legs are FTS5 and an in-process vector cache, fused in Python), so
its half is skipped with that reason; the Oracle half runs only where MEMGATE_ORACLE_DSN is set.
"""

from __future__ import annotations

import pytest
from kb_helpers import ACME, add_doc, hashing_manager

from memgate.manager.backend.base import ChunkFilters
from memgate.manager.kb.fusion import convex_fusion
from memgate.manager.kb.search import fusion_weights

WHERE = ChunkFilters(now="2099-01-01T00:00:00.000Z")
TEXTS = {
    "pumps": "Pumps move water; a pump that overheats shuts itself down.",
    "valves": "Valves open slowly and close fast under water pressure.",
    "filters": "Filters clog in spring; clean the pump filter weekly.",
    "policy": "Virtual private database policies add a predicate to every statement.",
}


def test_the_fused_statement_ranks_as_the_legs_fused_in_python(backend, backend_kind):
    if backend_kind != "oracle":
        pytest.skip("SQLite fuses its two legs in Python (manager/kb/fusion.py): no fused statement to compare")
    kb = hashing_manager(backend)
    for title, text in TEXTS.items():
        add_doc(kb, ACME, title, text)
    query = "why does the pump overheat under water pressure"
    vector = kb.embedder.embed([query])[0]
    weights = fusion_weights(query)
    with backend.session(ACME) as s:
        legs = {
            "lexical": s.kb_lexical(query, 50, WHERE),
            "vector": s.kb_vector(vector, kb.embedder.name, 50, WHERE),
        }
        rows = s.kb_fused(query, vector, kb.embedder.name, weights, 50, 10, WHERE)
    expected = convex_fusion(legs, weights)[:10]
    assert [int(r["seq"]) for r in rows] == [f.id for f in expected]
    assert [float(r["score"]) for r in rows] == pytest.approx([f.score for f in expected])
