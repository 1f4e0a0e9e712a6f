"""Replay: rebuild a window from the row versions its manifest names, and compare hashes.

Corrections never delete (a version is closed, the next inserted), so a window's
versions stay readable by (table, id) after the facts move on; the window is rendered
again from them, at the manifest's tiers, statuses and annotations, with its header and
question, and its sha256 compared with the manifest's window_hash. A dependency that is
gone (deleted, or soft-deleted) or that the caller may no longer see makes replay
impossible, and the result says which and why.

Asked to (`as_of_marker`), replay reads those versions as the database held them at the
manifest's change marker instead (Session.as_of: Oracle's Flashback at the recorded SCN,
through the same wall), so a dependency deleted or replaced since still replays; a
backend that keeps no change number, or a marker older than the database keeps undo
for, is NotFound with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..backend.base import Row, Session
from . import manifest as manifests
from .assemble import fixed_records
from .layout import FIXED, QUESTION, SLICES
from .render import RENDERER_VERSION, RENDERERS, header, record, window_text

__all__ = ["ERASED_NOTE", "Replay", "Unreplayable", "replay"]

#: what replay says of a window that used a row `memgate forget` erased (never rebuilt, not even as of
#: a change marker: Flashback could still read the erased row within undo retention)
ERASED_NOTE = "unavailable: a source was erased"

#: the tables a window reads (each has a context_rows_<table> statement)
_TABLES = (
    "entity_memory",
    "workflow_memory",
    "knowledge_base_chunk",
    "summarization_memory",
    "conversation_memory",
    "guideline_memory",
    "persona_memory",
    "toolbox_memory",
)


@dataclass(frozen=True)
class Unreplayable:
    ref: dict[str, Any]
    #: "deleted" (gone, or soft-deleted) or "not authorized" (there, but not for this caller)
    reason: str


@dataclass(frozen=True)
class Replay:
    manifest_id: str
    manifest: dict[str, Any]
    #: None when the window could not be rebuilt
    text: str | None
    window_hash: str | None
    matches: bool
    missing: list[Unreplayable] = field(default_factory=list)
    note: str | None = None
    #: the change marker the rows were read as of, or None when they were read as they are now
    as_of: dict[str, Any] | None = None


def replay(
    session: Session,
    manifest_id: str,
    tenant: str,
    *,
    exists: Callable[[list[str]], dict[str, Row]] | None = None,
    as_of_marker: bool = False,
    erased: Callable[[list[str]], set[str]] | None = None,
) -> Replay:
    """Rebuild the window of `manifest_id` as the session's caller sees the database now,
    or, with `as_of_marker`, as it saw it at the manifest's change marker.

    `exists(ids)` (the operator's view of the tenant) tells a deleted dependency from one
    the caller may no longer see; without it every missing row is reported as deleted.
    `erased(ids)` names the ids an erasure removed: a window that used one is not rebuilt.
    """
    m = manifests.read(session, manifest_id, tenant)
    if m.get("erased"):
        return Replay(manifest_id, m, None, None, False, note=ERASED_NOTE)
    if erased is not None:
        gone = erased([e["ref"]["id"] for e in m["memories"]])
        if gone:
            refs = [Unreplayable(e["ref"], "erased") for e in m["memories"] if e["ref"]["id"] in gone]
            return Replay(manifest_id, m, None, None, False, refs, note=ERASED_NOTE)
    if m.get("renderer_version") not in RENDERERS:
        return Replay(
            manifest_id,
            m,
            None,
            None,
            False,
            note=f"rendered by {m.get('renderer_version')}, this memgate renders {RENDERER_VERSION}",
        )
    marker = None
    if as_of_marker:
        marker = {k: v for k, v in m["change_marker"].items() if k not in ("versions", "sha256")}
        with session.as_of(marker):
            rows = _rows(session, m["memories"])
    else:
        rows = _rows(session, m["memories"])
    missing = _missing(m["memories"], rows, exists)
    if missing:
        return Replay(manifest_id, m, None, None, False, missing, as_of=marker)
    blocks: dict[str, list[str]] = {name: [] for name in SLICES if name != QUESTION}
    for entry in m["memories"]:
        row = rows[entry["ref"]["id"]]
        if entry["slice"] in FIXED:
            blocks[entry["slice"]] += fixed_records(entry["type"], [row])
        else:
            notes = [manifests.note_of(n) for n in entry.get("annotations", ())]
            blocks[entry["slice"]].append(
                record(
                    entry["type"],
                    row,
                    tier=entry["tier"],
                    status=entry["status"],
                    annotations=notes,
                    link=entry.get("link"),
                    renderer=m["renderer_version"],
                )
            )
    head = header(m["intent"], m["evaluated_at"], m["arithmetic"]["available"])
    text = window_text(head, blocks, m["request"]["question"], m["renderer_version"])
    digest = manifests.sha256(text)
    return Replay(manifest_id, m, text, digest, digest == m["window_hash"], as_of=marker)


def _rows(session: Session, memories: list[dict[str, Any]]) -> dict[str, Row]:
    ids: dict[str, list[str]] = {}
    for entry in memories:
        ids.setdefault(entry["ref"]["table"], []).append(entry["ref"]["id"])
    rows: dict[str, Row] = {}
    for table in _TABLES:
        if table in ids:
            for r in session.fetch_all(f"context_rows_{table}", ids=json.dumps(ids[table])):
                rows[r["id"]] = r
    return rows


def _missing(
    memories: list[dict[str, Any]], rows: dict[str, Row], exists: Callable[[list[str]], dict[str, Row]] | None
) -> list[Unreplayable]:
    gone = [e["ref"] for e in memories if e["ref"]["id"] not in rows]
    there = exists([r["id"] for r in gone]) if exists and gone else {}
    out = [
        Unreplayable(ref, "not authorized" if ref["id"] in there and not there[ref["id"]]["deleted_at"] else "deleted")
        for ref in gone
    ]
    for e in memories:
        row = rows.get(e["ref"]["id"])
        if row is None:
            continue
        if row.get("deleted_at") is not None:
            out.append(Unreplayable(e["ref"], "deleted"))
        elif int(row.get("version") or 1) != e["ref"]["version"]:
            out.append(Unreplayable(e["ref"], f"now version {row['version']}"))
    return out
