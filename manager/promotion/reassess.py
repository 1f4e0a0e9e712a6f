"""Reassessment: a memory resting on a record that changed stops being current until reassessed.

The promoted record is found through its `supports` links (evidence -> record). Marking ends the
record now (a claim's version is closed, a note's document and chunks end), so context assembly,
lookup_entity and search_memory no longer treat it as current, while every version stays as
history; the candidate gets reassess = 1, and `memgate candidates reassess` runs the gate's
checks again (review.py). A claim's correction marks what rests on the replaced version in the
correction's transaction (claims/entities.py); other changes (a document re-ingested or deleted)
are found when the operator runs the reassessment, which first marks every promoted memory whose
evidence is no longer the version it rests on.
"""

from __future__ import annotations

import json

from ..backend.base import Row, Session
from ..links.store import ends_by_id, links_touching

__all__ = ["end_record", "evidence_rows", "mark_resting_on", "mark_stale", "on_replaced"]


def mark_resting_on(session: Session, changed: list[tuple[str, str]], now: str) -> int:
    """Mark (and end) the promoted memories that `changed` records support; how many were marked."""
    ids = {i for _, i in changed}
    if not ids:
        return 0
    records = {
        (link["to_type"], link["to_id"])
        for link in links_touching(session, sorted(ids), now)
        if link["link_type"] == "supports" and (link["from_type"], link["from_id"]) in set(changed)
    }
    return mark_stale(session, sorted(records), now)


def on_replaced(session: Session, replaced: Row, now: str) -> None:
    """The hook a claim's correction runs (claims/entities.py correct's on_replaced)."""
    mark_resting_on(session, [("entity_memory", replaced["id"])], now)


def mark_stale(session: Session, records: list[tuple[str, str]], now: str) -> int:
    """End each record and mark the candidates that promoted it (inside the caller's transaction)."""
    records = [(t, i) for t, i in records if t and i]
    if not records:
        return 0
    for record_type, record_id in records:
        end_record(session, record_type, record_id, now)
    session.execute("candidate_mark_reassess", record_ids=json.dumps([i for _, i in records]))
    return len(records)


def evidence_rows(session: Session, refs: list[dict], now: str | None = None) -> list[Row]:
    """The current rows the refs name; with `now`, a corrected claim's ref is followed to its current
    version through the correction's `supersedes` link (reassessment reads evidence as it is now)."""
    rows = ends_by_id(session, [str(r["id"]) for r in refs])
    wanted = {(r["type"], r["id"]) for r in refs}
    found = [
        r
        for r in rows
        if (r["memory_type"], r["id"]) in wanted and r["deleted_at"] is None and r["valid_until"] is None
    ]
    if now is None:
        return found
    have = {r["id"] for r in found}
    for ref in refs:
        seen = {ref["id"]}
        current = ref["id"]
        while current not in have and len(seen) < 20:
            newer = [
                link["from_id"]
                for link in links_touching(session, [current], now)
                if link["link_type"] == "supersedes" and link["to_id"] == current and link["from_id"] not in seen
            ]
            if not newer:
                break
            current = newer[0]
            seen.add(current)
            rows = [r for r in ends_by_id(session, [current]) if r["deleted_at"] is None and r["valid_until"] is None]
            if rows:
                found.append(rows[0])
                have.add(ref["id"])
    return found


def end_record(session: Session, record_type: str | None, record_id: str | None, now: str) -> None:
    """A memory to be reassessed stops being current now; its rows stay, as history."""
    if record_type == "entity_memory":
        session.execute("entity_close_version", id=record_id, now=now)
    elif record_type == "knowledge_base_document":
        session.execute("kb_document_end", id=record_id, now=now)
        session.execute("kb_chunks_end_for_document", document_id=record_id, now=now)
