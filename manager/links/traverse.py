"""Graph-aware retrieval: each direct result's linked memories, breadth first, bounded and cycle-safe.

Traversal starts at the direct results a tool already ranked and never reorders them. Each
hop reads the live links touching the frontier and their far ends through the caller's
wall: a far end the wall hides, or one deleted or not yet valid, is simply not returned
(and not walked through). A memory is reached at most once per direct result, so a cycle
of links ends; `hops` and `limit` (linked results per direct result) bound the rest.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from ..backend.base import Row, Session
from ..errors import InvalidArgument
from .kinds import MAX_HOPS, MAX_LINKED, record_type, relation_from
from .store import far_ends, links_touching

__all__ = ["CURRENT", "HISTORICAL", "Linked", "bounded", "check_bounds", "traverse"]

CURRENT, HISTORICAL = "current", "historical"
#: a memory: (logical table, id)
Key = tuple[str, str]


@dataclass(frozen=True)
class Linked:
    """A memory reached from a direct result through links, and how it relates to the one before it."""

    row: Row
    #: read with this memory as subject toward `parent`: "ent_v1 is_superseded_by ent_v2"
    relation: str
    #: "out" when the stored link points from `parent` to this memory, "in" when from this memory
    direction: str
    #: the id of the memory this one was reached from (the direct result at hop 1)
    parent: str
    hop: int
    link_id: str
    provenance: str
    #: current, or historical when its own lifecycle has ended (a superseded version)
    status: str

    @property
    def id(self) -> str:
        return self.row["id"]

    @property
    def type(self) -> str:
        return record_type(self.row["memory_type"])

    def as_json(self) -> dict:
        return {
            "id": self.id,
            "type": self.type,
            "relation": self.relation,
            "direction": self.direction,
            "linked_to": self.parent,
            "hop": self.hop,
            "status": self.status,
            "link_id": self.link_id,
        }


def check_bounds(num_hops: int, max_linked_results: int) -> None:
    if isinstance(num_hops, bool) or not isinstance(num_hops, int) or not 0 <= num_hops <= MAX_HOPS:
        raise InvalidArgument(f"num_hops must be an integer from 0 to {MAX_HOPS}, got {num_hops!r}", field="num_hops")
    if (
        isinstance(max_linked_results, bool)
        or not isinstance(max_linked_results, int)
        or not 1 <= max_linked_results <= MAX_LINKED
    ):
        raise InvalidArgument(
            f"max_linked_results must be an integer from 1 to {MAX_LINKED}, got {max_linked_results!r}",
            field="max_linked_results",
        )


def traverse(session: Session, roots: list[Key], now: str, *, hops: int, limit: int) -> dict[Key, list[Linked]]:
    """Per root, up to `limit` linked memories within `hops`, nearest first, in the order links were made.

    A root that has more gets `limit + 1` (the extra one only says "more exist"; see `bounded`).
    """
    found: dict[Key, list[Linked]] = {r: [] for r in roots}
    seen: dict[Key, set[Key]] = {r: {r} for r in roots}
    frontier: dict[Key, list[Key]] = {r: [r] for r in roots}
    for hop in range(1, hops + 1):
        nodes = {n for nodes in frontier.values() for n in nodes}
        if not nodes:
            break
        links = links_touching(session, [i for _, i in nodes], now)
        ends = far_ends(session, links, nodes)
        steps: dict[Key, list[tuple[Row, Key, bool]]] = defaultdict(list)
        for link in links:
            a, b = (link["from_type"], link["from_id"]), (link["to_type"], link["to_id"])
            if a in nodes:
                steps[a].append((link, b, True))
            if b in nodes:
                steps[b].append((link, a, False))
        following: dict[Key, list[Key]] = {}
        for root in roots:
            following[root] = []
            for node in frontier[root]:
                for link, far, outgoing in steps.get(node, ()):
                    if len(found[root]) > limit:
                        break
                    row = ends.get(far)
                    if far in seen[root] or row is None or not _readable(row, now):
                        continue
                    seen[root].add(far)
                    found[root].append(
                        Linked(
                            row=row,
                            relation=relation_from(link["link_type"], outgoing),
                            direction="out" if outgoing else "in",
                            parent=node[1],
                            hop=hop,
                            link_id=link["id"],
                            provenance=link["provenance"],
                            status=_status(row, now),
                        )
                    )
                    following[root].append(far)
        frontier = following
    return found


def bounded(found: dict[Key, list[Linked]], limit: int) -> tuple[dict[str, list[Linked]], bool]:
    """traverse()'s result by root id, cut to `limit` each, and whether any root had more."""
    return {key[1]: items[:limit] for key, items in found.items()}, any(len(i) > limit for i in found.values())


def _readable(row: Row, now: str) -> bool:
    """Deleted and not-yet-valid memories are not history: a link does not bring them back."""
    return (row["deleted_at"] is None or row["deleted_at"] > now) and row["valid_from"] <= now


def _status(row: Row, now: str) -> str:
    return CURRENT if row["valid_until"] is None or row["valid_until"] > now else HISTORICAL
