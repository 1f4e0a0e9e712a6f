"""Fusing ranked lists (lexical and vector search): reciprocal ranks, or a weighted sum of normalised scores.

Reciprocal rank fusion (k=60, equal weights) ignores how far apart the scores are and gives a weak
leg as much say as a strong one, so on text where one leg is much the better it drags the fused
list below that leg alone (bench/quality.py measured it). `convex_fusion` sums each leg's scores
scaled into 0..1, weighted per query (search.py sets the weight); relevance.py turns its order into
calibrated scores. Context assembly's memories other than passages still use RRF.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import NamedTuple

from ..errors import InvalidArgument

__all__ = ["Fused", "convex_fusion", "reciprocal_rank_fusion"]


class Fused(NamedTuple):
    """One fused result: the id, its fused score, and its 1-based rank in each method that found it."""

    id: Hashable
    score: float
    ranks: dict[str, int]


def reciprocal_rank_fusion(rankings: Mapping[str, Sequence[Hashable]], k: int = 60) -> list[Fused]:
    """Fuse `{method: [id, ...best first]}` by score = sum over methods of 1 / (k + rank).

    Ties in score go to the better best rank, then to whichever id is met first when
    the methods are read in name order, each best first; so the result never depends
    on dict order or on ids being comparable. An id listed twice by one method keeps
    its better rank there.
    """
    if k < 0:
        raise InvalidArgument(f"k must be >= 0, got {k}.", field="k")
    ranks: dict[Hashable, dict[str, int]] = {}
    for method in sorted(rankings):
        for rank, item in enumerate(rankings[method], start=1):
            ranks.setdefault(item, {}).setdefault(method, rank)
    # dicts keep insertion order, so this index is the "met first" order described above.
    met_first = {item: index for index, item in enumerate(ranks)}
    fused = [
        # Adding the terms smallest rank first makes equal rank sets give bit-equal scores.
        Fused(item, sum(1.0 / (k + r) for r in sorted(by_method.values())), by_method)
        for item, by_method in ranks.items()
    ]
    fused.sort(key=lambda f: (-f.score, min(f.ranks.values()), met_first[f.id]))
    return fused


def _scaled(scored: Sequence[tuple[Hashable, float]]) -> dict[Hashable, float]:
    """Each id's score divided by the list's best, so the best is 1. Not min-max: that would give the
    last of a short list 0, as if it were no match (on the tuning queries the two scored alike)."""
    top = max((v for _, v in scored), default=0.0)
    out: dict[Hashable, float] = {}
    for item, value in scored:
        out.setdefault(item, value / top if top > 0 else 1.0)
    return out


def convex_fusion(
    scored: Mapping[str, Sequence[tuple[Hashable, float]]],
    weights: Mapping[str, float],
) -> list[Fused]:
    """Fuse `{method: [(id, score), ...best first]}` by score = sum over methods of weight x scaled score.

    Scores are larger for better and positive (BM25 negated, cosine > 0); each method's are divided by
    its best, so the best of every list counts as a full match (relevance.fuse calibrates the result).
    An id a method did not list adds 0 for it. Ties go to the better best rank, then to whichever id is
    met first with the methods read in name order, as in RRF.
    """
    if any(w < 0 for w in weights.values()):
        raise InvalidArgument("fusion weights must be >= 0.", field="weights")
    ranks: dict[Hashable, dict[str, int]] = {}
    scaled: dict[str, dict[Hashable, float]] = {}
    for method in sorted(scored):
        scaled[method] = _scaled(scored[method])
        for rank, (item, _) in enumerate(scored[method], start=1):
            ranks.setdefault(item, {}).setdefault(method, rank)
    met_first = {item: index for index, item in enumerate(ranks)}
    fused = [
        Fused(item, sum(weights.get(m, 0.0) * scaled[m][item] for m in sorted(by_method)), by_method)
        for item, by_method in ranks.items()
    ]
    fused.sort(key=lambda f: (-f.score, min(f.ranks.values()), met_first[f.id]))
    return fused
