"""expand(memory_id): the full form of a pointer or summary issued in the caller's current window.

Only an id the caller's current window (its thread's, or with no thread its server
session's) showed as a pointer or summary is expanded, and only while its source row
version is still there for the caller through the wall. Anything else is NotIssued,
with nothing said about whether the id exists elsewhere.

An image id is issued by any result the caller received that showed it (search_memory's
image records): the call log, which the wall cuts to the caller's own user, agent and
thread, is the record of what each result cited. A window never issues one (its evidence
shows description chunks), and a result that did not reach the caller issued nothing, so
an image id is expanded only for a caller it was shown to, and only while the caller can
still read the image. With include_bytes its bytes come beside the record, within
caps.max_image_bytes.
"""

from __future__ import annotations

import json

from ..backend.base import Session
from ..errors import ImageNotShown, NotIssued
from ..kb.image_view import show_image
from ..output.records import metadata_line
from ..output.results import ToolOutput
from ..tokens import count_tokens
from . import manifest as manifests
from .layout import FULL, POINTER, SUMMARY
from .render import record
from .window import WindowKey, current_window

__all__ = ["expand", "expand_image"]


def expand(session: Session, key: WindowKey, memory_id: str, *, now: str, idle_s: float) -> ToolOutput:
    window = current_window(session, key, now=now, idle_s=idle_s)
    entry = next(
        (
            m
            for m in (window.manifest["memories"] if window else ())
            if m["memory_id"] == memory_id and m["tier"] in (POINTER, SUMMARY)
        ),
        None,
    )
    if entry is None:
        raise NotIssued(
            f"{memory_id!r} was not issued as a pointer or summary in the caller's current window "
            f"({window.manifest_id if window else 'none'})"
        )
    ref = entry["ref"]
    rows = session.fetch_all(f"context_rows_{ref['table']}", ids=json.dumps([ref["id"]]))
    row = rows[0] if rows else None
    if row is None or row.get("deleted_at") is not None or int(row.get("version") or 1) != ref["version"]:
        raise NotIssued(
            f"{memory_id!r} was issued in window {window.manifest_id}, but its row version "
            f"{ref['table']} {ref['id']} v{ref['version']} is no longer there for the caller"
        )
    body = record(
        entry["type"],
        row,
        tier=FULL,
        status=entry["status"],
        annotations=[manifests.note_of(n) for n in entry.get("annotations", ())],
        link=entry.get("link"),
    )
    text = f"{metadata_line(expand=memory_id, window=window.manifest_id, was=entry['tier'])}\n{body}"
    return ToolOutput(text=text, rows=1, tokens=count_tokens(text), cited_ids=(memory_id,))


def expand_image(session: Session, image_id: str, now: str, *, include_bytes: bool, max_image_bytes: int) -> ToolOutput:
    """An image id a result the caller received showed: its record, and its bytes when asked."""
    issued = session.fetch_one("calllog_cited", needle=json.dumps(image_id)) is not None
    shown = (
        show_image(
            session,
            image_id,
            now,
            head={"expand": image_id},
            asked_bytes=include_bytes,
            max_image_bytes=max_image_bytes,
        )
        if issued
        else None
    )
    if shown is None:
        raise ImageNotShown(
            f"{image_id!r} was not shown to this caller by an earlier result, or the image is no longer there for it"
        )
    return shown
