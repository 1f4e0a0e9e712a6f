"""Retrieval metrics for the benchmarks: nDCG@k and recall@k, as trec_eval defines them.

`ranked` is a run for one query, best first; `judged` maps doc id to graded relevance
(<= 0 means not relevant). A doc id repeated in `ranked` counts at its first place only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

__all__ = ["mean_over_queries", "ndcg_at_k", "recall_at_k"]


def _first_k(ranked: Sequence[Hashable], k: int) -> list[Hashable]:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    seen: set[Hashable] = set()
    out = []
    for doc in ranked:
        if doc not in seen:
            seen.add(doc)
            out.append(doc)
            if len(out) == k:
                break
    return out


def ndcg_at_k(ranked: Sequence[Hashable], judged: Mapping[Hashable, int], k: int) -> float:
    """Linear gain (the grade), discount 1/log2(rank + 1); 0.0 when nothing is relevant."""
    dcg = sum(
        judged.get(doc, 0) / math.log2(rank + 1)
        for rank, doc in enumerate(_first_k(ranked, k), start=1)
        if judged.get(doc, 0) > 0
    )
    ideal_grades = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal_grades, start=1))
    return dcg / idcg if idcg else 0.0


def recall_at_k(ranked: Sequence[Hashable], judged: Mapping[Hashable, int], k: int) -> float:
    """Share of the relevant docs found in the first k; 0.0 when nothing is relevant."""
    relevant = {doc for doc, grade in judged.items() if grade > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(_first_k(ranked, k))) / len(relevant)


Metric = Callable[[Sequence[Hashable], Mapping[Hashable, int], int], float]


def mean_over_queries(
    run: Mapping[str, Sequence[Hashable]],
    qrels: Mapping[str, Mapping[Any, int]],
    metric: Metric,
    k: int,
) -> float:
    """Mean of `metric` over the queries that have a relevant doc; a query with none is
    skipped (as BEIR does), and a judged query missing from `run` scores 0."""
    scores = [
        metric(run.get(qid, ()), judged, k)
        for qid, judged in sorted(qrels.items())
        if any(grade > 0 for grade in judged.values())
    ]
    return sum(scores) / len(scores) if scores else 0.0
