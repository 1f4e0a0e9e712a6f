"""Fitting records into a token budget: the one place a result is cut to what the model can afford.

Records are kept whole, best first, while they fit; when even the first does not, it is
clipped to the longest prefix that fits rather than returning nothing. Counts are
o200k_base tokens, each record charged one more for the newline that joins it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ..tokens import count_tokens
from .records import clip

__all__ = ["clip_to_fit", "fit_attached", "fit_records"]

T = TypeVar("T")


def fit_records(
    items: Sequence[T],
    render: Callable[[T], str],
    max_tokens: int,
    *,
    reserve: int = 0,
    clip_first: Callable[[T, int], str | None] | None = None,
) -> list[str]:
    """Render items in order while the running total stays within `max_tokens`.

    `reserve` is charged first (the metadata line). `clip_first(item, tokens_left)` gives
    a shortened first record when the first whole one does not fit.
    """
    records: list[str] = []
    used = reserve
    for item in items:
        record = render(item)
        cost = count_tokens(record) + 1
        if used + cost > max_tokens:
            if not records and clip_first is not None:
                clipped = clip_first(item, max_tokens - used)
                if clipped:
                    records.append(clipped)
            break
        records.append(record)
        used += cost
    return records


def clip_to_fit(text: str, build: Callable[[str], str], max_tokens: int) -> str | None:
    """`build(prefix)` for the longest clipped prefix of `text` whose result costs at most `max_tokens`
    (newline included); None when not even one character fits."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(build(clip(text, mid))) + 1 <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return build(clip(text, lo)) if lo > 0 else None


def fit_attached(groups: Sequence[Sequence[T]], render: Callable[[T], str], tokens_left: int) -> list[list[str]]:
    """Records that hang off records already fitted (a result's linked results), within `tokens_left`.

    Groups follow their records' order and each group keeps its own order; the first record
    that does not fit ends the pass, so what is shown is always a prefix in that order and the
    records fitted first are never cut for these.
    """
    fitted: list[list[str]] = [[] for _ in groups]
    used = 0
    for n, group in enumerate(groups):
        for item in group:
            record = render(item)
            cost = count_tokens(record) + 1
            if used + cost > tokens_left:
                return fitted
            fitted[n].append(record)
            used += cost
    return fitted
