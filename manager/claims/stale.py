"""Stale facts: a record that used a claim version which is no longer the current one.

A summary names the claim versions it was built from (source_versions_json); a chunk
or a derived claim names one in its provenance columns. When such a version has been
corrected since, the record is history: whoever shows it shows the correction beside
it, as an annotation (output/records.py StaleFact). A version the caller cannot see
through the wall says nothing, so the check never reveals another scope's claims.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from ..backend.base import Row, Session
from ..output.records import StaleFact
from .entities import CURRENT, ClaimVersion, existing_at, label_versions

__all__ = ["Ref", "current_claim", "refs_of", "stale_facts"]

#: a row version: (logical table, id, version)
Ref = tuple[str, str, int]
_ENTITY = "entity_memory"


def refs_of(row: Row) -> list[Ref]:
    """The row versions a record says it used: its source_versions_json list and its provenance columns."""
    refs: list[Ref] = []
    raw = row.get("source_versions_json")
    if raw:
        try:
            listed = json.loads(raw)
        except ValueError:
            listed = []
        for item in listed if isinstance(listed, list) else []:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                refs.append((str(item.get("table")), item["id"], int(item.get("version") or 0)))
    if row.get("source_table") and row.get("source_id"):
        refs.append((row["source_table"], row["source_id"], int(row.get("source_version") or 0)))
    return refs


def current_claim(session: Session, subject: str, predicate: str, now: str) -> ClaimVersion | None:
    """The version of a claim in force for the caller at `now`, or None."""
    rows = session.fetch_all("entity_versions", subject=subject, predicate=predicate)
    return next((v for v in label_versions(existing_at(rows, now), now) if v.status == CURRENT), None)


def stale_facts(
    session: Session,
    uses: Mapping[str, Iterable[Ref]],
    now: str,
    *,
    own_claims: Mapping[str, tuple[str, str]] | None = None,
) -> dict[str, tuple[StaleFact, ...]]:
    """Per record id, one StaleFact for each claim version it used that is not current at `now`.

    `own_claims` maps a record that is itself a claim to its (subject, predicate): a
    version of the same claim is the one it replaced, not a fact it used.
    """
    found: dict[str, tuple[StaleFact, ...]] = {}
    checked: dict[str, StaleFact | None] = {}
    for record_id, refs in uses.items():
        notes = []
        for table, ref_id, version in refs:
            if table != _ENTITY:
                continue
            if ref_id not in checked:
                checked[ref_id] = _check(session, ref_id, version, now)
            note = checked[ref_id]
            own = (own_claims or {}).get(record_id)
            if note is None or (own is not None and _claim_of(session, ref_id) == own):
                continue
            notes.append(note)
        if notes:
            found[record_id] = tuple(notes)
    return found


def _claim_of(session: Session, ref_id: str) -> tuple[str, str] | None:
    used = session.fetch_one("entity_version_by_id", id=ref_id)
    return (used["subject"], used["predicate"]) if used else None


def _check(session: Session, ref_id: str, version: int, now: str) -> StaleFact | None:
    used = session.fetch_one("entity_version_by_id", id=ref_id)
    if used is None:
        return None  # not visible to this caller
    current = current_claim(session, used["subject"], used["predicate"], now)
    if current is not None and current.id == ref_id:
        return None
    what = f"{used['subject']} {used['predicate']}"
    if current is None:
        return StaleFact(
            current_fact_id="",
            current=f"{what} has no current version (the fact was withdrawn)",
            used=(_ENTITY, ref_id, version or used["version"]),
        )
    return StaleFact(
        current_fact_id=current.id,
        current=f"{what} = {current.row['content']} (version {current.version}, {current.id})",
        used=(_ENTITY, ref_id, version or used["version"]),
    )
