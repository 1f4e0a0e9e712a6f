"""The knowledge-base retrieval legs on SQLite: FTS5 BM25 and exact cosine over float32 blobs.

Both run on a walled session, so the walled views have already cut the rows to the
caller's tenant and scope, and every metadata filter is part of each leg's statement: candidates
are ranked among rows the caller may see, never cut from a global top-k and filtered.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..query_terms import MAX_QUERY_TERMS, query_terms

__all__ = ["MAX_QUERY_TERMS", "best_by_bm25", "fts_expression", "fts_string", "rank_by_cosine", "to_blob"]

#: rows scored at a time (bounds the float64 copy)
_SCORE_BLOCK = 4096


def fts_expression(query: str) -> str | None:
    """An FTS5 query matching any of the query's words (stop words dropped), its dotted identifiers as
    phrases, its identifiers as prefixes (`"lru_cache" *`) and its adjacent word pairs as phrases, each
    quoted so no word is syntax (manager/backend/query_terms.py says which terms). BM25 adds up the
    terms a chunk matches, so a chunk naming an identifier whole (both it and its prefix) outranks one
    naming only a longer identifier, and one saying "while statement" outranks one saying "statement"."""
    terms = query_terms(query)
    quoted = (
        [f'"{" ".join(p)}"' for p in terms.phrases]
        + [f'"{w}"' for w in terms.words]
        + [f'"{" ".join(p)}" *' for p in terms.prefixes]
        + [f'"{a} {b}"' for a, b in terms.pairs]
    )
    return " OR ".join(quoted) or None


def fts_string(text: str) -> str:
    """`text` as one FTS5 string (a term or a phrase): no word of it is query syntax."""
    return '"' + text.replace('"', '""') + '"'


def best_by_bm25(rows: Iterable[Sequence], limit: int) -> list[tuple[int, float]]:
    """The `limit` best (seq, bm25) of rows arriving in bm25 order (smaller is better), ties by seq.

    Reads no further than the last row tied with the `limit`-th, so a statement that FTS5 serves
    in rank order looks up only the chunks read.
    """
    taken: list[tuple[float, int]] = []
    for seq, bm25 in rows:
        if len(taken) >= limit and bm25 != taken[limit - 1][0]:
            if bm25 < taken[limit - 1][0]:
                raise ValueError("lexical candidates did not arrive in bm25 order")
            break
        taken.append((bm25, seq))
    taken.sort()
    return [(seq, bm25) for bm25, seq in taken[:limit]]


def to_blob(vector: np.ndarray) -> bytes:
    """How SQLite stores an embedding: float32 little-endian bytes."""
    array = np.asarray(vector, dtype="<f4")
    if array.ndim != 1:
        raise ValueError(f"an embedding is a 1-D vector, got shape {array.shape}")
    return array.tobytes()


def rank_by_cosine(rows: list[dict], query: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """Exact cosine of `query` against each row's float32 `embedding`; the `limit` best (seq, cosine).

    Embeddings are L2-normalised, so cosine is a dot product. A chunk with no positive
    similarity is not a vector match at all, only the least bad, so it is left out. Each row's
    product is summed in float64 on its own, so a chunk's cosine is the same bits whichever rows
    it is scored with (a BLAS matrix-vector product may sum a row differently by its position):
    the vector cache re-scores a few candidates and must agree with a pass over every row.
    """
    if not rows:
        return []
    dim = query.shape[0]
    # One join and one frombuffer: no per-row array objects, even at 100k chunks.
    matrix = np.frombuffer(b"".join(r["embedding"] for r in rows), dtype="<f4").reshape(len(rows), dim)
    seqs = np.fromiter((r["seq"] for r in rows), dtype=np.int64, count=len(rows))
    query64 = np.asarray(query, dtype=np.float64)
    scores = np.empty(len(rows), dtype=np.float64)
    for start in range(0, len(rows), _SCORE_BLOCK):
        block = matrix[start : start + _SCORE_BLOCK].astype(np.float64)
        scores[start : start + _SCORE_BLOCK] = np.add.reduce(block * query64, axis=1)
    top = np.argpartition(-scores, limit - 1)[:limit] if len(rows) > limit else np.arange(len(rows))
    order = top[np.lexsort((seqs[top], -scores[top]))]  # best first; ties by seq
    return [(int(seqs[i]), float(scores[i])) for i in order if scores[i] > 0]
