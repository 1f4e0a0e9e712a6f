"""Choosing among rows of several scopes: the most specific one wins."""

from __future__ import annotations

from ..backend.base import Row


def most_specific_per_key(rows: list[Row], key: str) -> dict[str, Row]:
    """The first row for each value of `key`.

    The statements order rows most specific scope first, newest version first,
    so the first row seen for a key is the one in force for the caller.
    """
    chosen: dict[str, Row] = {}
    for r in rows:
        chosen.setdefault(r[key], r)
    return chosen
