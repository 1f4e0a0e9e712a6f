"""Hybrid retrieval over knowledge-base chunks: BM25 + exact cosine, fused by reciprocal rank.

Both legs run inside the caller's session, so the tenant views have already cut the
rows to the caller's tenant, and every metadata filter (collection, document, scope,
lifecycle) is part of each leg's statement: candidates are ranked among rows the
caller may see, never cut from a global top-k and filtered afterwards.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from .backend.base import Session
from .embedder import Embedder
from .fusion import reciprocal_rank_fusion
from .identity import Identity
from .records import clip, escape_body, memory_record, metadata_line
from .results import ToolOutput
from .tokens import count_tokens

__all__ = ["DEFAULT_RESULT_TOKENS", "SearchFilters", "SearchHit", "fts_expression", "render", "search"]

LEXICAL, VECTOR = "lexical", "vector"
METHODS = (LEXICAL, VECTOR)
#: results shown when a call does not ask for a number
DEFAULT_RESULTS = 10
#: the token bound of one result when the tenant's context_budget guideline sets none
DEFAULT_RESULT_TOKENS = 2000
#: candidates each leg hands to fusion, at least
MIN_DEPTH = 50
#: query terms passed to FTS5; the rest of a very long query is ignored by the lexical leg
MAX_QUERY_TERMS = 32
RRF_K = 60

_TERM = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class SearchFilters:
    collection: str | None = None
    document_id: str | None = None


@dataclass(frozen=True)
class SearchHit:
    seq: int
    id: str
    document_id: str
    title: str
    collection: str
    position: int
    chunk_count: int
    content: str
    token_count: int
    score: float
    lexical_rank: int | None
    vector_rank: int | None
    bm25: float | None
    cosine: float | None


def fts_expression(query: str) -> str | None:
    """An FTS5 query matching any of the query's words, each quoted so no word is syntax."""
    terms = list(dict.fromkeys(t.lower() for t in _TERM.findall(query)))[:MAX_QUERY_TERMS]
    return " OR ".join(f'"{t}"' for t in terms) or None


def search(s: Session, identity: Identity, embedder: Embedder, query: str, now: str, *, limit: int,
           filters: SearchFilters = SearchFilters(), methods: tuple[str, ...] = METHODS,
           depth: int | None = None) -> list[SearchHit]:
    """The best `limit` chunks for `query` among the rows the session may see, best first."""
    depth = depth or max(MIN_DEPTH, 4 * limit)
    params = dict(collection=filters.collection, document=filters.document_id, now=now,
                  user=identity.user, agent=identity.agent, thread=identity.thread)
    rankings: dict[str, list[int]] = {}
    bm25: dict[int, float] = {}
    cosine: dict[int, float] = {}
    if LEXICAL in methods:
        expr = fts_expression(query)
        rows = s.fetch_all("kb_lexical", expr=expr, limit=depth, **params) if expr else []
        rankings[LEXICAL] = [r["seq"] for r in rows]
        bm25 = {r["seq"]: r["bm25"] for r in rows}
    if VECTOR in methods:
        ranked = _vector_ranking(s, embedder, query, depth, params)
        rankings[VECTOR] = [seq for seq, _ in ranked]
        cosine = dict(ranked)
    fused = reciprocal_rank_fusion(rankings, k=RRF_K)[:limit]
    if not fused:
        return []
    details = {r["seq"]: r for r in s.fetch_all("kb_chunk_details", seqs=json.dumps([f.id for f in fused]))}
    hits = []
    for f in fused:
        r = details.get(f.id)
        if r is None:  # deleted between the legs and this read
            continue
        hits.append(SearchHit(
            seq=f.id, id=r["id"], document_id=r["document_id"], title=r["title"], collection=r["collection"],
            position=r["position"], chunk_count=r["chunk_count"], content=r["content"],
            token_count=r["token_count"] if r["token_count"] is not None else count_tokens(r["content"]),
            score=f.score, lexical_rank=f.ranks.get(LEXICAL), vector_rank=f.ranks.get(VECTOR),
            bm25=bm25.get(f.id), cosine=cosine.get(f.id)))
    return hits


def _vector_ranking(s: Session, embedder: Embedder, query: str, depth: int, params: dict) -> list[tuple[int, float]]:
    """Exact cosine over every embedding the caller may see; the `depth` best as (seq, cosine)."""
    q = np.asarray(embedder.embed([query])[0], dtype=np.float32)
    if not q.any():
        return []
    rows = s.fetch_all("kb_vector_candidates", model=embedder.name, bytes=4 * embedder.dim, **params)
    if not rows:
        return []
    # One join and one frombuffer: no per-row array objects, even at 100k chunks.
    matrix = np.frombuffer(b"".join(r["embedding"] for r in rows), dtype="<f4").reshape(len(rows), embedder.dim)
    seqs = np.fromiter((r["seq"] for r in rows), dtype=np.int64, count=len(rows))
    scores = matrix @ q
    if len(rows) > depth:
        top = np.argpartition(-scores, depth - 1)[:depth]
    else:
        top = np.arange(len(rows))
    order = top[np.lexsort((seqs[top], -scores[top]))]  # best first; ties by seq
    # A chunk with no positive similarity is not a vector match at all, only the least bad.
    return [(int(seqs[i]), float(scores[i])) for i in order if scores[i] > 0]


def render(hits: list[SearchHit], *, query: str, collection: str | None, max_tokens: int,
           asked: int) -> ToolOutput:
    """At most `asked` records best first, as many as fit in `max_tokens` (head included).

    `hits` may hold one more than `asked`: that extra hit only says "more exist". Chunk
    text is bounded by tokens here (and at ingest), not clipped at the cell limit: a
    search result is read as passages, not as table cells.
    """
    more_rows = len(hits) > asked
    hits = hits[:asked]

    def head_of(n: int, more: bool, tokens: int) -> str:
        return metadata_line(search=_one_line(query), collection=collection, results=n,
                             more_exist="yes" if more else "no", tokens=tokens, budget=f"{max_tokens} tokens")

    if not hits:
        text = head_of(0, False, 0) + "\nNo knowledge-base chunk matches this query."
        return ToolOutput(text=text, tokens=count_tokens(text))
    reserve = count_tokens(head_of(len(hits), True, 99_999)) + 1
    records: list[str] = []
    used = reserve
    for hit in hits:
        record = _record(hit)
        cost = count_tokens(record) + 1
        if used + cost > max_tokens:
            if not records:  # the best hit alone is too big: clip it rather than return nothing
                record = _record(hit, fit_tokens=max_tokens - used)
                if record:
                    records.append(record)
            break
        records.append(record)
        used += cost
    shown = hits[: len(records)]
    more = more_rows or len(records) < len(hits)
    body = "\n".join(records)
    text = f"{head_of(len(records), more, count_tokens(body))}\n{body}" if records else head_of(0, True, 0)
    return ToolOutput(text=text, rows=len(records), truncated=more,
                      tokens=count_tokens(text), cited_ids=tuple(h.id for h in shown),
                      structured={"results": [_as_dict(h) for h in shown]})


def _record(hit: SearchHit, fit_tokens: int | None = None) -> str | None:
    """The hit's record; with `fit_tokens`, its text clipped to the longest prefix that fits."""

    def build(content: str, clipped: bool) -> str:
        body = f"title: {_one_line(hit.title)}\n{content}"
        return memory_record(
            body, id=hit.id, type="kb_chunk", document=hit.document_id, collection=hit.collection,
            position=hit.position, chunks=hit.chunk_count, tokens=hit.token_count, score=f"{hit.score:.4f}",
            lexical_rank=hit.lexical_rank, vector_rank=hit.vector_rank,
            cosine=None if hit.cosine is None else f"{hit.cosine:.3f}", clipped="yes" if clipped else None,
            cell_chars=len(body))

    if fit_tokens is None:
        return build(hit.content, False)
    lo, hi = 0, len(hit.content)
    while lo < hi:  # the longest prefix whose record fits
        mid = (lo + hi + 1) // 2
        if count_tokens(build(clip(hit.content, mid), True)) + 1 <= fit_tokens:
            lo = mid
        else:
            hi = mid - 1
    return build(clip(hit.content, lo), True) if lo > 0 else None


def _one_line(text: str) -> str:
    return escape_body(clip(" ".join(text.split()), 120))


def _as_dict(hit: SearchHit) -> dict:
    return {"id": hit.id, "document_id": hit.document_id, "title": hit.title, "collection": hit.collection,
            "position": hit.position, "chunks": hit.chunk_count, "tokens": hit.token_count,
            "score": hit.score, "lexical_rank": hit.lexical_rank, "vector_rank": hit.vector_rank,
            "cosine": hit.cosine}
