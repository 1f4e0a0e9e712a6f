"""Writing, removing and listing links, always through the caller's walled session.

Both ends of a new link are read through the wall first: an end the caller cannot see
(absent, deleted, another tenant's or another user's) is refused with the field named and
nothing is written, whether the id exists elsewhere or not. The link is stamped with the
scope of its two ends together, so whoever sees the link is in scope of both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..backend.base import Row, Session
from ..errors import InvalidArgument, NotFound
from ..identity import Identity
from ..ids import new_id
from ..output.echo import clip_echo
from .kinds import PROVENANCES, REVERSE, memory_type, split_relation

__all__ = [
    "SCOPE_COLUMNS",
    "LinkEnd",
    "LinkView",
    "add_link",
    "ends_by_id",
    "far_ends",
    "find_link",
    "link_between",
    "links_of",
    "links_touching",
    "read_end",
    "remove_link",
    "write_link",
]

#: the scope columns a memory row carries (NULL: shared at that level)
SCOPE_COLUMNS = ("user_id", "agent_id", "thread_id")


@dataclass(frozen=True)
class LinkEnd:
    """One end of a link as the caller's wall shows it."""

    row: Row

    @property
    def type(self) -> str:
        return self.row["memory_type"]

    @property
    def id(self) -> str:
        return self.row["id"]


def ends_by_id(session: Session, ids: list[str], type: str | None = None) -> list[Row]:
    """Every memory of a linkable type with one of `ids` that the caller's wall shows, any lifecycle."""
    if not ids:
        return []
    return session.fetch_all("memory_items", ids=json.dumps(sorted(set(ids))), type=type)


def read_end(session: Session, id: str, type: str | None, field: str, now: str) -> LinkEnd:
    """The one memory `id` names for this caller, or InvalidArgument naming `field` (never saying why not)."""
    type = memory_type(type, f"{field}_type")
    if not isinstance(id, str) or not id.strip():
        raise InvalidArgument(f"{field} must be a memory id", field=field)
    found = [r for r in ends_by_id(session, [id], type) if r["deleted_at"] is None or r["deleted_at"] > now]
    if not found:
        raise InvalidArgument(
            f"{field} {clip_echo(id)!r} is no memory you can see; link ids your results showed",
            field=field,
            hint="Check the id and the scope it lives in: a user's memories are visible only with that user (--user).",
        )
    if len(found) > 1:
        kinds = ", ".join(sorted(r["memory_type"] for r in found))
        raise InvalidArgument(
            f"{field} {clip_echo(id)!r} names memories of several types ({kinds}); say which", field=f"{field}_type"
        )
    return LinkEnd(found[0])


def add_link(
    session: Session,
    identity: Identity,
    from_id: str,
    link_type: str,
    to_id: str,
    *,
    now: str,
    from_type: str | None = None,
    to_type: str | None = None,
    provenance: str = "explicit",
    note: str | None = None,
) -> tuple[Row, bool]:
    """Link two memories the caller can see, in a transaction of its own: see link_between."""
    with session.transaction():
        return link_between(
            session,
            identity,
            from_id,
            link_type,
            to_id,
            now=now,
            from_type=from_type,
            to_type=to_type,
            provenance=provenance,
            note=note,
        )


def link_between(
    session: Session,
    identity: Identity,
    from_id: str,
    link_type: str,
    to_id: str,
    *,
    now: str,
    from_type: str | None = None,
    to_type: str | None = None,
    provenance: str = "explicit",
    note: str | None = None,
) -> tuple[Row, bool]:
    """(the new link, True), or (the live one already there, False), inside the caller's transaction.

    `link_type` may be named backwards (`is_superseded_by`): the ends are swapped and the
    link stored forwards.
    """
    stored, swap = split_relation(link_type)
    first = read_end(session, from_id, from_type, "from_id", now)
    second = read_end(session, to_id, to_type, "to_id", now)
    source, target = (second, first) if swap else (first, second)
    if (source.type, source.id) == (target.type, target.id):
        raise InvalidArgument("a memory cannot be linked to itself", field="to_id")
    live = session.fetch_one(
        "memory_link_live",
        from_type=source.type,
        from_id=source.id,
        link_type=stored,
        to_type=target.type,
        to_id=target.id,
    )
    if live is not None:
        return live, False
    return write_link(session, identity, source, stored, target, now=now, provenance=provenance, note=note), True


def write_link(
    session: Session,
    identity: Identity,
    source: LinkEnd,
    link_type: str,
    target: LinkEnd,
    *,
    now: str,
    provenance: str,
    note: str | None = None,
) -> Row:
    """Insert the link row (inside the caller's transaction). Both ends were read through the wall."""
    if provenance not in PROVENANCES:
        raise InvalidArgument(
            f"provenance must be one of {', '.join(PROVENANCES)}, got {provenance!r}", field="provenance"
        )
    if note is not None and len(note) > 1000:
        raise InvalidArgument(f"note must be at most 1000 characters, got {len(note)}", field="note")
    scope = {c: source.row.get(c) or target.row.get(c) for c in SCOPE_COLUMNS}
    row = {
        "id": new_id("lnk"),
        "tenant_id": identity.tenant,
        **scope,
        "from_type": source.type,
        "from_id": source.id,
        "link_type": link_type,
        "to_type": target.type,
        "to_id": target.id,
        "provenance": provenance,
        "note": note,
        "version": 1,
        "valid_from": now,
        "created_by": identity.principal or identity.user,
        "created_at": now,
    }
    session.insert("memory_link", row)
    return row


def remove_link(session: Session, link_id: str, now: str) -> Row:
    """Mark a live link the caller can see removed (its row stays, with deleted_at)."""
    with session.transaction():
        row = session.fetch_one("memory_link_by_id", id=link_id)
        if row is None or row["deleted_at"] is not None:
            raise NotFound(
                f"no live link {clip_echo(link_id)!r} you can see",
                hint="List the links of one of its memories (memgate link ls MEMORY_ID) for the link id.",
            )
        session.execute("memory_link_delete", id=link_id, now=now)
    return {**row, "deleted_at": now}


def links_touching(session: Session, ids: list[str], now: str) -> list[Row]:
    """The live links with an end among `ids` (either type: callers match (type, id) themselves)."""
    if not ids:
        return []
    return session.fetch_all("memory_links_touching", ids=json.dumps(sorted(set(ids))), now=now)


def far_ends(session: Session, links: list[Row], near: set[tuple[str, str]]) -> dict[tuple[str, str], Row]:
    """The far ends of `links` seen from the `near` (type, id) set, read through the wall."""
    wanted: set[tuple[str, str]] = set()
    for link in links:
        if (link["from_type"], link["from_id"]) in near:
            wanted.add((link["to_type"], link["to_id"]))
        if (link["to_type"], link["to_id"]) in near:
            wanted.add((link["from_type"], link["from_id"]))
    rows = ends_by_id(session, [i for _, i in wanted])
    return {(r["memory_type"], r["id"]): r for r in rows if (r["memory_type"], r["id"]) in wanted}


@dataclass(frozen=True)
class LinkView:
    """One link of a memory as `memgate link ls` shows it: read with that memory as subject."""

    link: Row
    #: "supersedes" when the memory is the link's from end, "is_superseded_by" when its to end
    relation: str
    #: the other end, as the wall shows it
    far: Row


def find_link(session: Session, identity: Identity, from_id: str, link_type: str, to_id: str, now: str) -> Row:
    """The live link `from_id link_type to_id` (either spelling of the relation) the caller can see."""
    stored, swap = split_relation(link_type)
    first, second = read_end(session, from_id, None, "from_id", now), read_end(session, to_id, None, "to_id", now)
    source, target = (second, first) if swap else (first, second)
    live = session.fetch_one(
        "memory_link_live",
        from_type=source.type,
        from_id=source.id,
        link_type=stored,
        to_type=target.type,
        to_id=target.id,
    )
    if live is None:
        raise NotFound(
            f"no live link {from_id} {link_type} {to_id}",
            hint=f"List the links of {from_id} with `memgate link ls {from_id} -t {identity.tenant}`.",
        )
    return live


def links_of(session: Session, id: str, type: str | None, now: str) -> list[LinkView]:
    """The live links of one visible memory whose far end the caller can see, oldest first."""
    end = read_end(session, id, type, "memory_id", now)
    key = (end.type, end.id)
    links = [
        link
        for link in links_touching(session, [end.id], now)
        if key in ((link["from_type"], link["from_id"]), (link["to_type"], link["to_id"]))
    ]
    far = far_ends(session, links, {key})
    views = []
    for link in links:
        outgoing = (link["from_type"], link["from_id"]) == key
        other = (link["to_type"], link["to_id"]) if outgoing else (link["from_type"], link["from_id"])
        if other in far:
            views.append(LinkView(link, link["link_type"] if outgoing else REVERSE[link["link_type"]], far[other]))
    return views
