"""Linked history in a window: an earlier memory enters only beside the one it is linked to, labelled.

Selection leaves out versions whose lifecycle has ended (a superseded claim). When an
admitted memory has a link to such a version, one hop away, the version enters after
all, as `historical`, carrying the link's label (linked_to, relation, direction) at every
tier, and its lifecycle exclusion is withdrawn. Current linked memories are not added:
they compete on their own retrieval score. Links and far ends are read through the wall
(manager/links/traverse.py), so nothing enters that the caller could not read directly.
"""

from __future__ import annotations

import json

from ..backend.base import Session
from ..links.kinds import DEFAULT_LINKED
from ..links.traverse import HISTORICAL, traverse
from .candidates import Candidate
from .layout import BY_TABLE, VOLATILE_TAIL
from .layout import HISTORICAL as HISTORICAL_STATUS
from .selection import Exclusion, order_key

__all__ = ["linked_history"]

#: a linked memory sorts just below the one that brought it
_BELOW = 1e-6


def linked_history(
    session: Session, admitted: list[Candidate], excluded: list[Exclusion], now: str
) -> tuple[list[Candidate], list[Exclusion]]:
    """`admitted` with each admitted memory's linked history added after it; `excluded` without them."""
    roots = {(c.table, c.id): c for c in admitted if c.slice != VOLATILE_TAIL}
    if not roots:
        return admitted, excluded
    found = traverse(session, list(roots), now, hops=1, limit=DEFAULT_LINKED)
    have = {c.id for c in admitted}
    added: list[Candidate] = []
    for key, items in found.items():
        parent = roots[key]
        for item in items[:DEFAULT_LINKED]:
            kind = BY_TABLE.get(item.row["memory_type"])
            if item.status != HISTORICAL or kind is None or item.id in have:
                continue
            rows = session.fetch_all(f"context_rows_{kind.table}", ids=json.dumps([item.id]))
            if not rows:
                continue
            have.add(item.id)
            added.append(
                Candidate(
                    kind.name,
                    kind.slice,
                    rows[0],
                    retrieval=parent.retrieval,
                    status=HISTORICAL_STATUS,
                    score=parent.score - _BELOW,
                    link={"linked_to": parent.id, "relation": item.relation, "direction": item.direction},
                )
            )
    if not added:
        return admitted, excluded
    refs = {c.ref for c in added}
    return sorted(admitted + added, key=order_key), [e for e in excluded if e.ref not in refs]
