"""Calibrated relevance: what a retrieval leg's raw evidence says about a passage, in 0..1, and the floor.

A ranked list always has a best item, so scores divided by their leg's best (as fusion once did) make
the best of any list look like a good match, however weak: an off-topic question got its nearest
passage with score 0.5. Here each leg's evidence is mapped to a relevance that means the same for
every query, by logistic curves fitted on judged (query, passage) pairs and on off-topic queries
(`python3 -m bench.calibrate`, docs/benchmarks.md):

- lexical: the share of the query's words the passage holds, each word weighted by how rare it is in
  English (its rank in o200k_base's merges stands in for a corpus frequency, so the measure is the
  same on every backend and for a knowledge base of three documents), the number of query words,
  and, for an identifier look-up, whether the passage names the identifier whole;
- vector: the cosine, and the number of query words.

`fuse` then scales each leg's scores by its best, as before (that order ranks best), and multiplies
by the calibrated relevance of the leg's strongest evidence: a leg that found nothing convincing
adds little, and a lone weak leg cannot look like a good match. `above_floor` keeps what reaches the
tenant's relevance floor and says how close the best came when nothing does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

from ..backend.query_terms import identifiers, is_keyword_query, names_exactly, query_terms
from ..tokens import encoding
from .fusion import Fused, convex_fusion

__all__ = [
    "CALIBRATIONS",
    "Calibration",
    "Floored",
    "QueryEvidence",
    "above_floor",
    "calibration_for",
    "coverage",
    "fuse",
]

LEXICAL, VECTOR = "lexical", "vector"


@dataclass(frozen=True)
class Calibration:
    """Two logistic curves: relevance = 1 / (1 + exp(-z)).

    lexical z = a + coverage * b_cov + ln(words) * b_words + coverage * ln(words) * b_both + exact * b_exact
    vector  z = a + cosine * b_cos + ln(words) * b_words
    """

    lexical: tuple[float, float, float, float, float]
    vector: tuple[float, float, float]

    def lexical_relevance(self, coverage: float, words: int, exact: bool) -> float:
        a, b_cov, b_words, b_both, b_exact = self.lexical
        n = math.log(max(1, words))
        return _logistic(a + coverage * b_cov + n * b_words + coverage * n * b_both + (b_exact if exact else 0.0))

    def vector_relevance(self, cosine: float, words: int) -> float:
        a, b_cos, b_words = self.vector
        return _logistic(a + cosine * b_cos + math.log(max(1, words)) * b_words)


#: fitted by `python3 -m bench.calibrate` on the tuning thirds of bench/quality.py's three collections
#: and the tuning third of their off-topic queries (bench/offtopic.py), per embedder
CALIBRATIONS: dict[str, Calibration] = {
    "wordllama-l2_supercat-256": Calibration(lexical=(-4.95, 5.17, 1.06, -0.74, 4.69), vector=(-3.45, 9.07, 0.37)),
    "all-minilm-l6-v2-384": Calibration(lexical=(-4.95, 5.17, 1.06, -0.74, 4.69), vector=(-4.47, 9.8, 0.6)),
    # the tests' embedder: feature hashing, no meaning (bench/results/calibration-hashing-256.json)
    "hashing-256": Calibration(lexical=(-4.95, 5.17, 1.06, -0.74, 4.69), vector=(-0.84, 5.13, -0.24)),
}
#: the curves used for an embedder none was fitted for
DEFAULT_EMBEDDER = "wordllama-l2_supercat-256"


def calibration_for(embedder_name: str) -> Calibration:
    return CALIBRATIONS.get(embedder_name) or CALIBRATIONS[DEFAULT_EMBEDDER]


def _logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0


# -- lexical evidence ---------------------------------------------------------------------------------

#: endings cut before a query word is looked for at the start of a passage's words (porter-ish, so that
#: "slicings" finds "slicing" and "statements" finds "statement")
_SUFFIXES = ("ational", "ations", "ation", "ings", "ing", "ies", "ied", "edly", "ed", "es", "s", "ly", "er")
#: o200k_base ranks below this are the commonest words; a word's weight grows with the log of its rank
_COMMON_RANK = 500
#: the rank given to a word o200k_base splits into pieces (rarer than any single token)
_SPLIT_RANK = 200_000


def stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=65_536)
def word_weight(word: str) -> float:
    """How much finding `word` says: about ln(rank / 500) of its o200k_base token, at least 0.5 (an
    IDF-like weight from English usage: "the" and "said" weigh little, "Mugabe" and "asyncio" much)."""
    tokens = encoding().encode_ordinary(" " + word)
    rank = tokens[0] if len(tokens) == 1 else _SPLIT_RANK
    return max(0.5, math.log(max(rank, 1) / _COMMON_RANK))


@lru_cache(maxsize=65_536)
def _stem_pattern(word: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(stem(word)))


@dataclass(frozen=True)
class QueryEvidence:
    """What a query brings to relevance: its content words and identifiers, as the lexical leg reads them."""

    words: tuple[str, ...]
    names: tuple[str, ...]

    @classmethod
    def of(cls, query: str) -> QueryEvidence:
        words = tuple(dict.fromkeys(query_terms(query).words))
        return cls(words, tuple(identifiers(query)) if is_keyword_query(query) else ())

    def coverage(self, text: str) -> float:
        return coverage(self.words, text)

    def names_whole(self, text: str) -> bool:
        """Whether `text` names one of the query's identifiers whole (an identifier look-up only)."""
        return bool(self.names) and names_exactly(text, list(self.names))


def coverage(words: Sequence[str], text: str) -> float:
    """The weighted share of `words` that `text` holds (a word counts when a word of the text starts
    with its stem), each weighted by word_weight; 0.0 for no words."""
    if not words:
        return 0.0
    low = text.lower()
    total = sum(word_weight(w) for w in words)
    found = sum(word_weight(w) for w in words if _stem_pattern(w).search(low))
    return found / total


# -- fusion on calibrated scores --------------------------------------------------------------------


def fuse(
    query: str,
    scored: Mapping[str, Sequence[tuple[Hashable, float]]],
    weights: Mapping[str, float],
    texts: Mapping[Any, str],
    embedder_name: str,
) -> list[Fused]:
    """Fuse `{lexical: [(id, score)], vector: [(id, cosine)]}` (each best first) into calibrated relevance.

    Each leg's scores are divided by its best (the order that ranks best, bench/quality.py) and
    multiplied by the calibrated relevance of that leg's strongest evidence: for the lexical leg the
    best of its candidates' lexical relevance (their `texts` give coverage and whole identifiers), for
    the vector leg its best cosine's. The weighted sum is a passage's relevance in 0..1: a passage
    first in both legs gets the weighted mean of their calibrated relevance, and a leg whose best is
    weak adds little, whatever its order. `weights` are the legs' shares (they sum to 1).
    """
    cal = calibration_for(embedder_name)
    evidence = QueryEvidence.of(query)
    n = len(evidence.words)
    anchors: dict[str, float] = {}
    for method, ranked in scored.items():
        if not ranked:
            anchors[method] = 0.0
        elif method == VECTOR:
            anchors[method] = cal.vector_relevance(max(c for _, c in ranked), n)
        else:
            anchors[method] = max(
                cal.lexical_relevance(evidence.coverage(texts.get(i, "")), n, evidence.names_whole(texts.get(i, "")))
                for i, _ in ranked
            )
    return convex_fusion(scored, weights, anchors=anchors)


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
