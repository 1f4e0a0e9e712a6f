"""Lexical ranking is per tenant: another tenant's documents change neither a tenant's order nor its scores."""

from __future__ import annotations

import asyncio

from fastmcp import Client
from kb_helpers import ACME, GLOBEX, add_doc, hashing_manager

QUERY = "kumquat irrigation schedule"
GLOBEX_DOCS = {
    "orchard": "The kumquat orchard needs an irrigation schedule in dry months. Pruning is in March.",
    "pumps": "Pump maintenance: check seals weekly. The irrigation pumps run at night.",
    "fruit": "Kumquat fruit ripens in winter; pick when fully orange.",
    "office": "The office schedule moves to summer hours in June.",
    "other": "Nothing here matches the words of the query at all.",
}
ACME_FLOOD = [f"Kumquat kumquat irrigation irrigation schedule schedule memo {i}." for i in range(40)]


def _lexical(kb, identity):
    return [(h.id, h.lexical_score) for h in kb.search_chunks(identity, QUERY, methods=("lexical",), limit=10)]


def test_another_tenants_documents_change_neither_order_nor_scores(backend):
    kb = hashing_manager(backend)
    for title, text in GLOBEX_DOCS.items():
        add_doc(kb, GLOBEX, title, text)
    add_doc(kb, ACME, "acme-seed", "A kumquat note.")
    globex_before, acme_before = _lexical(kb, GLOBEX), _lexical(kb, ACME)
    assert len(globex_before) == 4
    for i, text in enumerate(ACME_FLOOD):
        add_doc(kb, ACME, f"flood-{i}", text)
    assert _lexical(kb, GLOBEX) == globex_before
    # The same documents ingested by globex itself do move its scores: the check above can fail.
    acme_after = _lexical(kb, ACME)
    assert [s for i, s in acme_after if i == acme_before[0][0]] != [acme_before[0][1]]


def test_over_mcp_globex_sees_the_same_results_before_and_after_acme_floods(backend):
    from memory_helpers import seed, server_for

    kb = hashing_manager(backend)
    seed(kb, ACME)
    seed(kb, GLOBEX)
    for title, text in GLOBEX_DOCS.items():
        add_doc(kb, GLOBEX, title, text)

    async def globex_results() -> str:
        async with Client(server_for(kb, GLOBEX)) as client:
            result = await client.call_tool("search_memory", {"query": QUERY, "max_results": 5})
            return result.content[0].text

    before = asyncio.run(globex_results())
    assert "orchard" in before
    for i, text in enumerate(ACME_FLOOD):
        add_doc(kb, ACME, f"flood-{i}", text)
    assert asyncio.run(globex_results()) == before
