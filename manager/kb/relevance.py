"""Calibrated relevance: how strongly a query's best evidence says the knowledge base answers it, in
0..1, the same scale for every query; and the relevance floor held against it.

A ranked list always has a best item, so scores divided by their leg's best make the best of any list
look like a good match, however weak: an off-topic question once got its nearest passage with score
0.5. Here a query's relevance comes from what both legs found at their best, read by a logistic curve
fitted on judged and off-topic queries (`python3 -m bench.calibrate`, docs/benchmarks.md):

- cosine: the vector leg's best cosine;
- coverage: the largest weighted share of the query's words that one of the lexical leg's best
  candidates holds (its COVERAGE_CANDIDATES first), each word weighted by its rarity;
- present: the weighted share of the query's words that the tenant's index holds at all (a question
  about penguins asked of a knowledge base no chunk of which says "penguin" is not answered by it);
- the number of the query's words (their log): a long question's best passage shares fewer of them;
- the size of the tenant's index (the log of its chunks, up to FITTED_CHUNKS): the best of four
  hundred passages is a better match by chance than the best of three, so a larger index needs
  stronger evidence (the curves were fitted on whole collections and on small tenants sampled from
  them, bench/calibrate_small.py).

A word's rarity is how few of the tenant's chunks hold it (an IDF from its own lexical index,
Session.kb_term_stats), blended with its rarity in English (its o200k_base merge rank: "the" and
"said" weigh little, "Mugabe" and "asyncio" much) in the ratio of the index's size to BLEND_CHUNKS,
so a knowledge base of three documents weighs its words by English usage and a large one mostly by
its own counts. Without index statistics (a caller of `fuse` with none), English usage alone, and a
curve without `present`.

`fuse` ranks as the fusion always did (each leg's scores divided by its best, weighted, summed) and
gives each passage the query's relevance times its fused score relative to the best passage: the first
passage scores the query's relevance, the others less by rank. `answered` holds the list against the
tenant's floor by its best passage (the query is answered or not); `above_floor` holds each passage
against it (a context window's evidence slice keeps only passages strong enough on their own).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

from ..backend.base import TermStats
from ..backend.query_terms import query_terms
from ..tokens import encoding
from .fusion import Fused, convex_fusion

__all__ = [
    "CALIBRATIONS",
    "Calibration",
    "Evidence",
    "Floored",
    "above_floor",
    "answered",
    "calibration_for",
    "coverage",
    "evidence",
    "fuse",
    "query_words",
    "word_weights",
]

LEXICAL, VECTOR = "lexical", "vector"
#: the lexical leg's best candidates (in its order) whose text gives a query's coverage
COVERAGE_CANDIDATES = 10
#: the index size, in chunks, at which the tenant's own word counts and English usage weigh a word
#: equally (chosen on the tuning queries: docs/benchmarks.md)
BLEND_CHUNKS = 500
#: the largest index the curves were fitted on, in chunks: a larger one counts as this large
FITTED_CHUNKS = 2_000


@dataclass(frozen=True)
class Evidence:
    """What a query's legs found at their best; None where a leg did not run or no statistics exist."""

    words: int
    cosine: float | None
    coverage: float | None
    present: float | None
    #: chunks in the tenant's index (None: no statistics)
    chunks: int | None = None

    @property
    def size(self) -> float:
        """ln(chunks), within 0..ln(FITTED_CHUNKS)."""
        return math.log(min(max(1, self.chunks or 1), FITTED_CHUNKS))


@dataclass(frozen=True)
class Calibration:
    """Logistic curves over a query's evidence, one for each kind of evidence at hand:
    relevance = 1 / (1 + exp(-z)), with n = ln(words), s = ln(index chunks) and

    indexed    z = a + n*b_n + cos*b_cos + cov*b_cov + present*b_present + s*b_s + cos*s*b_cs + cov*s*b_vs
               (both legs, with the index's word counts)
    unindexed  z = a + n*b_n + cos*b_cos + cov*b_cov                  (both legs, no statistics)
    lexical    z = a + n*b_n + cov*b_cov + present*b_present + s*b_s + cov*s*b_vs   (the lexical leg alone)
    vector     z = a + n*b_n + cos*b_cos                              (the vector leg alone)
    """

    indexed: tuple[float, float, float, float, float, float, float, float]
    unindexed: tuple[float, float, float, float]
    lexical: tuple[float, float, float, float, float, float]
    vector: tuple[float, float, float]

    def relevance(self, e: Evidence) -> float:
        n, s = math.log(max(1, e.words)), e.size
        if e.coverage is None:
            return _curve(self.vector, n, e.cosine or 0.0)
        if e.cosine is None:
            present = 1.0 if e.present is None else e.present
            return _curve(self.lexical, n, e.coverage, present, s, e.coverage * s)
        if e.present is None:
            return _curve(self.unindexed, n, e.cosine, e.coverage)
        return _curve(self.indexed, n, e.cosine, e.coverage, e.present, s, e.cosine * s, e.coverage * s)


def _curve(b: Sequence[float], *x: float) -> float:
    z = b[0] + sum(bi * xi for bi, xi in zip(b[1:], x, strict=True))
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


#: fitted by `python3 -m bench.calibrate` on the tuning thirds of bench/quality.py's three collections
#: and of their off-topic queries (bench/offtopic.py, bench/offtopic_more.py), per embedder
CALIBRATIONS: dict[str, Calibration] = {
    "wordllama-l2_supercat-256": Calibration(
        indexed=(-11.8, 5.72, 7.1, 8.39, 4.52, -2.39, 1.56, 1.63),
        unindexed=(-13.91, 4.59, 5.06, 13.54),
        lexical=(-12.06, 5.55, 10.33, 4.5, -1.48, 1.42),
        vector=(-6.43, 1.52, 15.71),
    ),
    "all-minilm-l6-v2-384": Calibration(
        indexed=(-13.32, 5.86, 9.91, 9.15, 3.87, -2.03, 0.87, 1.38),
        unindexed=(-14.58, 4.64, 7.6, 12.82),
        lexical=(-12.06, 5.55, 10.33, 4.5, -1.48, 1.42),
        vector=(-7.8, 1.81, 17.05),
    ),
    # the tests' embedder: feature hashing, no meaning (bench/results/calibration-hashing-256.json)
    "hashing-256": Calibration(
        indexed=(-11.96, 5.63, 3.35, 10.05, 5.42, -2.5, 2.15, 1.68),
        unindexed=(-13.68, 4.71, 0.6, 15.33),
        lexical=(-12.06, 5.55, 10.33, 4.5, -1.48, 1.42),
        vector=(-2.27, 0.52, 6.95),
    ),
}
#: the curves used for an embedder none was fitted for
DEFAULT_EMBEDDER = "wordllama-l2_supercat-256"


def calibration_for(embedder_name: str) -> Calibration:
    return CALIBRATIONS.get(embedder_name) or CALIBRATIONS[DEFAULT_EMBEDDER]


# -- the words of a query and their weights -----------------------------------------------------------

#: endings cut before a query word is looked for at the start of a passage's words (porter-ish, so that
#: "slicings" finds "slicing" and "statements" finds "statement")
_SUFFIXES = ("ational", "ations", "ation", "ings", "ing", "ies", "ied", "edly", "ed", "es", "s", "ly", "er")
#: o200k_base ranks below this are the commonest words; a word's weight grows with the log of its rank
_COMMON_RANK = 500
#: the rank given to a word o200k_base splits into pieces (rarer than any single token)
_SPLIT_RANK = 200_000


def query_words(query: str) -> tuple[str, ...]:
    """The query's content words, as the lexical leg reads them (stop words out, identifiers in parts)."""
    return tuple(dict.fromkeys(query_terms(query).words))


def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=65_536)
def english_weight(word: str) -> float:
    """How much finding `word` says by English usage: about ln(rank / 500) of its o200k_base token, at
    least 0.5 ("the" and "said" weigh little, "Mugabe" and "asyncio" much)."""
    tokens = encoding().encode_ordinary(" " + word)
    rank = tokens[0] if len(tokens) == 1 else _SPLIT_RANK
    return max(0.5, math.log(max(rank, 1) / _COMMON_RANK))


def word_weights(
    words: Sequence[str], stats: TermStats | None = None, *, blend_chunks: int = BLEND_CHUNKS
) -> dict[str, float]:
    """Each word's share of the query's weight (they sum to 1): by English usage, and with `stats` also
    by how few of the tenant's chunks hold it (BM25's IDF), the two blended in the ratio of the index's
    chunks to BLEND_CHUNKS (an index of a few chunks says little about rarity)."""
    if not words:
        return {}
    english = _shares({w: english_weight(w) for w in words})
    if stats is None or stats.chunks <= 0:
        return english
    n = stats.chunks
    own = _shares({w: _idf(min(n, max(0, stats.holding.get(w, 0))), n) for w in words})
    mix = n / (n + blend_chunks)
    return {w: mix * own[w] + (1 - mix) * english[w] for w in words}


def _idf(holding: int, chunks: int) -> float:
    return math.log(1 + (chunks - holding + 0.5) / (holding + 0.5))


def _shares(weights: Mapping[str, float]) -> dict[str, float]:
    total = sum(weights.values())
    return {w: v / total for w, v in weights.items()} if total > 0 else dict.fromkeys(weights, 1 / len(weights))


@lru_cache(maxsize=65_536)
def _stem_pattern(word: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(stem(word)))


def coverage(words: Sequence[str], text: str, weights: Mapping[str, float] | None = None) -> float:
    """The weighted share of `words` that `text` holds (a word counts when a word of the text starts
    with its stem), each weighted by `weights` (default: English usage); 0.0 for no words."""
    if not words:
        return 0.0
    weights = weights if weights is not None else word_weights(words)
    low = text.lower()
    total = sum(weights[w] for w in words)
    found = sum(weights[w] for w in words if _stem_pattern(w).search(low))
    return found / total if total > 0 else 0.0


def evidence(
    query: str,
    scored: Mapping[str, Sequence[tuple[Hashable, float]]],
    texts: Mapping[Any, str],
    stats: TermStats | None = None,
    *,
    blend_chunks: int = BLEND_CHUNKS,
) -> Evidence:
    """What `scored`'s legs found at their best for `query` (`texts` holds at least the text of the
    lexical leg's COVERAGE_CANDIDATES first candidates; `stats` the tenant index's word counts)."""
    words = query_words(query)
    weights = word_weights(words, stats, blend_chunks=blend_chunks)
    cosine = max((c for _, c in scored[VECTOR]), default=0.0) if VECTOR in scored else None
    cover = None
    if LEXICAL in scored:
        best = scored[LEXICAL][:COVERAGE_CANDIDATES]
        cover = max((coverage(words, texts.get(i, ""), weights) for i, _ in best), default=0.0)
    present = None
    if stats is not None:
        present = sum(weights[w] for w in words if stats.holding.get(w, 0) > 0) if words else 0.0
    return Evidence(
        words=len(words), cosine=cosine, coverage=cover, present=present, chunks=stats.chunks if stats else None
    )


# -- fusion on calibrated scores --------------------------------------------------------------------


def fuse(
    query: str,
    scored: Mapping[str, Sequence[tuple[Hashable, float]]],
    weights: Mapping[str, float],
    texts: Mapping[Any, str],
    embedder_name: str,
    *,
    stats: TermStats | None = None,
) -> list[Fused]:
    """Fuse `{lexical: [(id, score)], vector: [(id, cosine)]}` (each best first) into calibrated relevance.

    The order is convex_fusion's (each leg's scores divided by its best, weighted by `weights`, summed):
    the order that ranks best (bench/quality.py). Each passage's score is the query's relevance (the
    embedder's curve over `evidence`) times its fused score divided by the first passage's, so the
    first passage scores the query's relevance and a lone weak leg cannot look like a good match.
    `texts` holds the lexical candidates' text, `stats` the tenant index's word counts (None: English
    usage alone, and the curve fitted without them).
    """
    fused = convex_fusion(scored, weights)
    if not fused:
        return []
    relevance = calibration_for(embedder_name).relevance(evidence(query, scored, texts, stats))
    top = fused[0].score
    return [Fused(f.id, relevance * (f.score / top if top > 0 else 1.0), f.ranks) for f in fused]


# -- the floor -----------------------------------------------------------------------------------------

T = TypeVar("T")


@dataclass(frozen=True)
class Floored:
    """What reaches the floor, and when nothing does, the relevance of the closest item (else None)."""

    kept: list
    floor: float
    below: int
    closest: float | None

    @property
    def nothing(self) -> bool:
        return not self.kept and self.closest is not None


def above_floor(items: Sequence[T], floor: float, relevance: Callable[[T], float]) -> Floored:
    """The items whose relevance is at least `floor`, in their order; `closest` is the best relevance of
    those left out when none is kept (a model can then ask instead of answering from nothing)."""
    kept = [x for x in items if relevance(x) >= floor]
    below = len(items) - len(kept)
    closest = max((relevance(x) for x in items), default=None) if not kept else None
    return Floored(kept, floor, below, closest)


def answered(items: Sequence[T], floor: float, relevance: Callable[[T], float]) -> Floored:
    """Every item, in order, when the best's relevance reaches `floor` (the query is answered, and the
    items after the best are kept by rank); none otherwise, with the best's relevance as `closest`."""
    best = max((relevance(x) for x in items), default=None)
    if best is None or best >= floor:
        return Floored(list(items), floor, 0, None)
    return Floored([], floor, len(items), best)
