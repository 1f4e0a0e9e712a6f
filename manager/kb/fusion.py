"""Reciprocal rank fusion of several ranked lists (e.g. lexical and vector search)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import NamedTuple

from ..errors import InvalidArgument

__all__ = ["Fused", "reciprocal_rank_fusion"]


class Fused(NamedTuple):
    """One fused result: the id, its RRF score, and its 1-based rank in each method that found it."""

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
