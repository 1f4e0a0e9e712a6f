"""Hybrid retrieval over knowledge-base chunks: the backend's lexical and vector legs, fused on
calibrated scores (relevance.fuse): each leg's scores divided by its best, summed with a weight per
query, and scaled so the first hit scores the query's calibrated relevance (what both legs found at
their best, and how rare in the tenant's index the words found are). A hit's score is in 0..1, the
same scale for every query, which the tenant's relevance floor is held against.

The lexical leg's weight is LEXICAL_WEIGHT for a question or a sentence and KEYWORD_LEXICAL_WEIGHT for
a short identifier look-up (query_terms.is_keyword_query), the vector leg's the rest. Both were set on
the tuning third of bench/quality.py's three collections (Lee news, pydoc sections, CPython NEWS
entries) and are reported on the other two thirds (docs/benchmarks.md).

Both legs run inside the caller's session, so the database wall has already cut the rows
to what the caller may see, and every metadata filter is part of each leg: candidates are
ranked among visible rows, never cut from a global top-k and filtered afterwards. Chunks
whose text is the same (ignoring case and spacing) are folded into the best-ranked one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..backend.base import ChunkFilters, Row, Session, TermStats
from ..backend.query_terms import identifiers, is_keyword_query, names_exactly
from ..tokens import count_tokens
from . import relevance
from .embed import Embedder
from .fusion import Fused

__all__ = ["DEFAULT_RESULTS", "METHODS", "SearchFilters", "SearchHit", "lexical_top", "search"]

LEXICAL, VECTOR = "lexical", "vector"
METHODS = (LEXICAL, VECTOR)
#: results shown when a call does not ask for a number
DEFAULT_RESULTS = 10
#: candidates each leg hands to fusion, at least
MIN_DEPTH = 50
#: lexical_top reads this many candidates per hit asked for first, and the full depth only when folding used them up
SHALLOW = 2
#: RRF's k where ranks are still fused that way (context assembly's candidates)
RRF_K = 60
#: the lexical leg's share of a hybrid score for a question or sentence, and for an identifier look-up
LEXICAL_WEIGHT = 0.5
KEYWORD_LEXICAL_WEIGHT = 0.9


@dataclass(frozen=True)
class SearchFilters:
    collection: str | None = None
    document_id: str | None = None
    #: also chunks whose lifecycle has ended (valid_until passed); deleted ones never
    include_ended: bool = False
    #: leave this document's chunks out before fusion ("what else is like this document")
    exclude_document_id: str | None = None


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
    #: calibrated relevance in 0..1 (relevance.fuse): comparable across queries, held against the floor
    score: float
    lexical_rank: int | None
    vector_rank: int | None
    #: the lexical leg's own score (higher is better; BM25 negated on SQLite)
    lexical_score: float | None
    cosine: float | None
    #: exact duplicates of this chunk's text (normalized) ranked below it and left out
    folded: int = 0
    #: the row version the chunk says it was made from (provenance), or None
    source: tuple[str, str, int] | None = None
    #: its lifecycle has ended (only when the search asked for ended chunks)
    ended: bool = False


def search(
    s: Session,
    embedder: Embedder,
    query: str,
    now: str,
    *,
    limit: int,
    filters: SearchFilters = SearchFilters(),
    methods: tuple[str, ...] = METHODS,
    depth: int | None = None,
) -> list[SearchHit]:
    """The best `limit` chunks for `query` among the rows the session may see, best first."""
    depth = depth or max(MIN_DEPTH, 4 * limit)
    legs = run_legs(s, embedder, query, now, depth=depth, filters=filters, methods=methods)
    lexical, cosine = dict(legs.scored.get(LEXICAL, ())), dict(legs.scored.get(VECTOR, ()))
    fused = relevance.fuse(query, legs.scored, legs.weights, legs.texts, embedder.name, stats=legs.stats)
    return _collect(s, fused, legs.details, limit, now, lexical, cosine)


def lexical_top(
    s: Session, query: str, now: str, *, limit: int, filters: SearchFilters = SearchFilters()
) -> list[SearchHit]:
    """The list `search(..., methods=(LEXICAL,))` returns, without calibrating it: the lexical leg's best
    `limit` chunks in its own order (BM25; exact identifiers first for an identifier look-up), folded
    the same way, read no further than needed. No word counts, no fusion and no relevance curve, so a
    hit's `score` is its BM25 score divided by the best, not calibrated relevance: for a caller that reads
    the passages themselves (the promotion gate's duplicate lookup), at about half a search's cost."""
    where = ChunkFilters(
        now=now, collection=filters.collection, document_id=filters.document_id, include_ended=filters.include_ended
    )
    depth = max(MIN_DEPTH, 4 * limit)
    keyword = is_keyword_query(query)
    # BM25's order is a prefix order: the first few candidates are those of the full depth, so a read of
    # SHALLOW x limit gives the same hits unless folding or deletions used them all up (then read it all).
    # An identifier look-up moves exact names forward from anywhere in the depth, so it reads it all.
    for reading in (depth,) if keyword else (min(depth, SHALLOW * limit), depth):
        ranked = s.kb_lexical(query, reading, where)
        details: dict[Any, Row] = {}
        if keyword:
            details.update(_details(s, [seq for seq, _ in ranked]))
            ranked = _exact_identifiers_first(query, ranked, details)
        top = ranked[0][1] if ranked else 0.0
        ordered = [
            Fused(seq, score / top if top > 0 else 1.0, {LEXICAL: n}) for n, (seq, score) in enumerate(ranked, 1)
        ]
        hits = _collect(s, ordered, details, limit, now, dict(ranked), {})
        if len(hits) == limit or len(ranked) < reading:
            return hits
    return hits


def _collect(
    s: Session,
    fused: list[Fused],
    details: dict[Any, Row],
    limit: int,
    now: str,
    lexical: dict[Any, float],
    cosine: dict[Any, float],
) -> list[SearchHit]:
    """The first `limit` hits of `fused` (best first), each chunk's text once: a chunk whose normalized
    text an earlier hit has is folded into it. `details` holds rows already read; the rest are read a
    window at a time."""
    hits: list[SearchHit] = []
    first_of: dict[str, int] = {}  # normalized text -> index of its best-ranked hit
    start = 0
    while len(hits) < limit and start < len(fused):
        # Read just enough candidates to fill `limit` once duplicates are folded away.
        window = fused[start : start + 2 * (limit - len(hits))]
        start += len(window)
        details.update(_details(s, [f.id for f in window if f.id not in details]))
        for f in window:
            r = details.get(f.id)
            if r is None:  # deleted between the legs and this read
                continue
            key = _normalized(r["content"])
            if key in first_of:
                # The same text from another file (a book's print.html beside its chapters):
                # the best-ranked copy stands for both and says how many it folded.
                best = first_of[key]
                hits[best] = replace(hits[best], folded=hits[best].folded + 1)
                continue
            if len(hits) == limit:
                break
            first_of[key] = len(hits)
            hits.append(
                SearchHit(
                    seq=f.id,
                    id=r["id"],
                    document_id=r["document_id"],
                    title=r["title"],
                    collection=r["collection"],
                    position=r["position"],
                    chunk_count=r["chunk_count"],
                    content=r["content"],
                    token_count=r["token_count"] if r["token_count"] is not None else count_tokens(r["content"]),
                    score=f.score,
                    lexical_rank=f.ranks.get(LEXICAL),
                    vector_rank=f.ranks.get(VECTOR),
                    lexical_score=lexical.get(f.id),
                    cosine=cosine.get(f.id),
                    source=(r["source_table"], r["source_id"], int(r["source_version"] or 0))
                    if r["source_id"]
                    else None,
                    ended=r["valid_until"] is not None and r["valid_until"] <= now,
                )
            )
    return hits


@dataclass(frozen=True)
class Legs:
    """Each leg's candidates for one query, best first, with what fusion needs to calibrate them."""

    #: {method: [(seq, score)]}: BM25 (negated on SQLite; exact identifiers first) and cosine
    scored: dict[str, list[tuple[int, float]]]
    #: each leg's share of a hybrid score (one leg alone: 1)
    weights: dict[str, float]
    #: rows (kb_chunk_details) by seq: at least the lexical leg's first relevance.COVERAGE_CANDIDATES,
    #: whose text gives the query's coverage (all of its candidates for an identifier look-up)
    details: dict[Any, Row]
    #: the tenant index's counts of the query's words (None when the lexical leg did not run)
    stats: TermStats | None = None

    @property
    def texts(self) -> dict[Any, str]:
        return {seq: r["content"] for seq, r in self.details.items()}


def run_legs(
    s: Session,
    embedder: Embedder,
    query: str,
    now: str,
    *,
    depth: int,
    filters: SearchFilters = SearchFilters(),
    methods: tuple[str, ...] = METHODS,
) -> Legs:
    """The lexical and vector legs of `query`, up to `depth` candidates each, among the chunks the session
    may see, with the tenant index's counts of its words (also what bench/calibrate.py fits the
    relevance curve on). The lexical candidates' text is read for the first COVERAGE_CANDIDATES (their
    coverage) and, for an identifier look-up, for all of them (which name it whole)."""
    where = ChunkFilters(
        now=now, collection=filters.collection, document_id=filters.document_id, include_ended=filters.include_ended
    )
    scored: dict[str, list[tuple[int, float]]] = {}
    details: dict[Any, Row] = {}
    stats = None
    if LEXICAL in methods:
        lexical_ranked = s.kb_lexical(query, depth, where)
        if is_keyword_query(query):
            details.update(_details(s, [seq for seq, _ in lexical_ranked]))
            scored[LEXICAL] = _exact_identifiers_first(query, lexical_ranked, details)
        else:
            scored[LEXICAL] = lexical_ranked
        stats = s.kb_term_stats(relevance.query_words(query), exclude_document=filters.exclude_document_id)
    if VECTOR in methods:
        vector = np.asarray(embedder.embed([query])[0], dtype=np.float32)
        scored[VECTOR] = s.kb_vector(vector, embedder.name, depth, where)
    if filters.exclude_document_id is not None:
        details.update(_details(s, [seq for ranked in scored.values() for seq, _ in ranked if seq not in details]))
        scored = {
            m: [
                (seq, v)
                for seq, v in ranked
                if seq in details and details[seq]["document_id"] != filters.exclude_document_id
            ]
            for m, ranked in scored.items()
        }
    if LEXICAL in scored:  # the text coverage is measured on (read once; the hits reuse it)
        first = [seq for seq, _ in scored[LEXICAL][: relevance.COVERAGE_CANDIDATES] if seq not in details]
        details.update(_details(s, first))
    weights = fusion_weights(query)
    total = sum(weights[m] for m in scored)
    return Legs(scored, {m: weights[m] / total for m in scored}, details, stats)


def _details(s: Session, seqs: list[Any]) -> dict[Any, Row]:
    if not seqs:
        return {}
    return {r["seq"]: r for r in s.fetch_all("kb_chunk_details", seqs=json.dumps(seqs))}


def _exact_identifiers_first(
    query: str, ranked: list[tuple[int, float]], details: dict[int, Row]
) -> list[tuple[int, float]]:
    """For an identifier look-up, the lexical candidates that name the identifier exactly ahead of those
    that only match its stemmed words (`sqlite3.Connection` for `sqlite3.connect`) or a longer identifier
    it prefixes, BM25 order within each (`details` holds the candidates' text)."""
    names = identifiers(query) if is_keyword_query(query) else []
    if not names or not ranked:
        return ranked
    exact = {seq for seq, _ in ranked if seq in details and names_exactly(details[seq]["content"], names)}
    top = ranked[0][1]
    boosted = [(seq, score + top if seq in exact else score) for seq, score in ranked]
    return sorted(boosted, key=lambda p: -p[1])  # stable: BM25 order kept within each group


def fusion_weights(query: str) -> dict[str, float]:
    """Each leg's share of a hybrid score for this query."""
    w = KEYWORD_LEXICAL_WEIGHT if is_keyword_query(query) else LEXICAL_WEIGHT
    return {LEXICAL: w, VECTOR: 1.0 - w}


def _normalized(text: str) -> str:
    """What makes two chunks the same passage: their words, ignoring case and spacing."""
    return " ".join(text.split()).casefold()
