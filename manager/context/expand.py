"""expand(memory_id): the full form of a pointer or summary issued in the caller's current window.

Only an id the caller's current window (its thread's, or with no thread its server
session's) showed as a pointer or summary is expanded, and only while its source row
version is still there for the caller through the wall. Anything else is NotIssued,
with nothing said about whether the id exists elsewhere.
"""

from __future__ import annotations

import json

from ..backend.base import Session
from ..errors import NotIssued
from ..output.records import metadata_line
from ..output.results import ToolOutput
from ..tokens import count_tokens
from . import manifest as manifests
from .layout import FULL, POINTER, SUMMARY
from .render import record
from .window import WindowKey, current_window

__all__ = ["expand"]


def expand(session: Session, key: WindowKey, memory_id: str) -> ToolOutput:
    window = current_window(session, key)
    entry = next((m for m in (window.manifest["memories"] if window else ())
                  if m["memory_id"] == memory_id and m["tier"] in (POINTER, SUMMARY)), None)
    if entry is None:
        raise NotIssued(f"{memory_id!r} was not issued as a pointer or summary in the caller's current window "
                        f"({window.manifest_id if window else 'none'})")
    ref = entry["ref"]
    rows = session.fetch_all(f"context_rows_{ref['table']}", ids=json.dumps([ref["id"]]))
    row = rows[0] if rows else None
    if row is None or row.get("deleted_at") is not None or int(row.get("version") or 1) != ref["version"]:
        raise NotIssued(f"{memory_id!r} was issued in window {window.manifest_id}, but its row version "
                        f"{ref['table']} {ref['id']} v{ref['version']} is no longer there for the caller")
    body = record(entry["type"], row, tier=FULL, status=entry["status"],
                  annotations=[manifests.note_of(n) for n in entry.get("annotations", ())], link=entry.get("link"))
    text = f"{metadata_line(expand=memory_id, window=window.manifest_id, was=entry['tier'])}\n{body}"
    return ToolOutput(text=text, rows=1, tokens=count_tokens(text), cited_ids=(memory_id,))
