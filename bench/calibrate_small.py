"""Small knowledge bases for the relevance fit: tenants of a few documents sampled from a collection.

A query's best evidence depends on how many passages it was the best of: among three passages an
unrelated best cosine is lower than among four hundred, and a word's count in a tiny index says
little. Curves fitted on large collections alone would judge the demo's three documents harshly (its
"What is Helios?" got nothing). So bench/calibrate.py also fits on small tenants: for each tuning
query and each size in SIZES, the collection's documents are sampled (a judged query keeps up to a
third of its relevant documents, so the small tenant can answer it; an off-topic one gets random
documents) and searched in memory as the SQLite backend searches a tenant: an FTS5 table on the
index's tokenizer ranked by BM25 over the lexical leg's own MATCH expression (identifier look-ups
with their exact namers first), its fts5vocab for the word counts, exact cosine over the chunks'
stored embeddings; relevance.evidence reads the result as it reads a real search.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable

import numpy as np

#: sizes of the sampled tenants, in documents
SIZES = (3, 10, 30)
DEPTH = 50


def stored_chunks(session) -> dict[str, list[tuple[int, str, np.ndarray]]]:
    """A collection's chunks as ingested, by document title: (seq, text, embedding)."""
    rows = session.raw(
        "SELECT c.seq, d.title, c.content, c.embedding FROM knowledge_base_chunk c "
        "JOIN knowledge_base_document d ON d.id = c.document_id"
    )
    out: dict[str, list[tuple[int, str, np.ndarray]]] = {}
    for r in rows:
        out.setdefault(r["title"], []).append((r["seq"], r["content"], np.frombuffer(r["embedding"], dtype="<f4")))
    return out


def sampled_queries(
    collection: str,
    parts: list,
    chunks: dict[str, list[tuple[int, str, np.ndarray]]],
    embed: Callable[[str], np.ndarray],
    seed: str,
) -> list[dict]:
    """Per size and per query of `parts`: what bench/calibrate.py fits on, from a sampled small tenant."""
    from memgate.manager.backend.sqlite.lexical import index_tokenizer

    out = []
    mem = sqlite3.connect(":memory:")
    tokenizer = index_tokenizer()
    titles = sorted(chunks)
    for size in SIZES:
        rng = random.Random(f"{seed}:{size}")
        for part in parts:
            for qid, query in part.queries.items():
                judged = bool(part.qrels[qid])
                relevant = [t for t, g in sorted(part.qrels[qid].items()) if g > 0 and t in chunks][: max(1, size // 3)]
                others = [t for t in titles if t not in relevant and t != part.source_doc.get(qid)]
                docs = relevant + rng.sample(others, min(len(others), size - len(relevant)))
                picked = [c for t in docs for c in chunks[t]]
                scored, texts, stats = _search(mem, tokenizer, query, picked, embed(query))
                out.append(
                    {
                        "collection": f"{collection}/{size} docs",
                        "judged": judged,
                        "query": query,
                        "scored": scored,
                        "texts": texts,
                        "stats": stats,
                    }
                )
    mem.close()
    return out


def _search(mem: sqlite3.Connection, tokenizer: str, query: str, picked: list, vector: np.ndarray):
    from memgate.manager.backend.base import TermStats
    from memgate.manager.backend.sqlite.kb import fts_expression
    from memgate.manager.kb import relevance
    from memgate.manager.kb.search import _exact_identifiers_first

    for name in ("q_vocab", "q_terms", "q_words", "tenant_vocab", "tenant"):
        mem.execute(f"DROP TABLE IF EXISTS {name}")
    mem.execute(f"CREATE VIRTUAL TABLE tenant USING fts5(content, tokenize = '{tokenizer}')")
    mem.execute("CREATE VIRTUAL TABLE tenant_vocab USING fts5vocab(tenant, row)")
    mem.execute(f"CREATE VIRTUAL TABLE q_words USING fts5(word, tokenize = '{tokenizer}')")
    mem.execute("CREATE VIRTUAL TABLE q_terms USING fts5vocab(q_words, instance)")
    mem.executemany("INSERT INTO tenant (rowid, content) VALUES (?, ?)", [(seq, text) for seq, text, _ in picked])
    words = list(relevance.query_words(query))
    mem.execute("INSERT INTO q_words (rowid, word) SELECT key + 1, value FROM json_each(?)", (json.dumps(words),))
    found: dict[int, int] = {}
    for position, n in mem.execute(
        "SELECT t.doc - 1, coalesce(v.doc, 0) FROM q_terms t LEFT JOIN tenant_vocab v ON v.term = t.term"
    ):
        found[position] = min(found.get(position, n), n)
    stats = TermStats(chunks=len(picked), holding={w: found.get(i, 0) for i, w in enumerate(words)})
    texts = {seq: text for seq, text, _ in picked}
    expr = fts_expression(query)
    ranked = (
        [
            (seq, -rank)
            for seq, rank in mem.execute(
                "SELECT rowid, rank FROM tenant WHERE tenant MATCH ? ORDER BY rank, rowid LIMIT ?", (expr, DEPTH)
            )
        ]
        if expr
        else []
    )
    details = {seq: {"content": texts[seq]} for seq, _ in ranked}
    lexical = _exact_identifiers_first(query, ranked, details)
    cosines = sorted(((seq, float(e @ vector)) for seq, _, e in picked), key=lambda p: (-p[1], p[0]))
    return {"lexical": lexical, "vector": [p for p in cosines if p[1] > 0][:DEPTH]}, texts, stats
