"""expand(memory_id): the full form of a pointer or summary issued in the caller's current window.

Only an id the caller's current window (its thread's, or with no thread its window
session's) showed as a pointer or summary is expanded, and only while its source row
version is still there for the caller through the wall. Anything else is NotIssued,
with nothing said about whether the id exists elsewhere.

Conversations are reachable exactly from what a window shows of them:
- a turn the window holds (at any tier) expands to itself whole with the turns around it
  (NEIGHBOURS on each side, in order);
- a conversation summary the window holds (at any tier) expands to itself whole and the raw
  turns it was made from, in order, as many as the result's tokens hold, saying when more
  exist; each of those turns expands in its turn (with its neighbours), so any summarised
  turn is reachable exactly.

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
import re

from ..backend.base import Session
from ..errors import ImageNotShown, NotIssued
from ..kb.image_view import show_image
from ..output.budget import fit_records
from ..output.records import metadata_line
from ..output.results import ToolOutput
from ..tokens import count_tokens
from . import manifest as manifests
from .layout import FULL, POINTER, SUMMARY
from .render import record
from .window import WindowKey, current_window

__all__ = ["NEIGHBOURS", "expand", "expand_image"]

_TURN_ATTR = re.compile(r'^<memory [^>\n]*\bturn="(\d+)"')

#: turns expand brings back on each side of a turn
NEIGHBOURS = 2
_CONVERSATION_KINDS = ("conversation", "summary")


def expand(
    session: Session, key: WindowKey, memory_id: str, *, now: str, idle_s: float, max_tokens: int | None = None
) -> ToolOutput:
    window = current_window(session, key, now=now, idle_s=idle_s)
    memories = window.manifest["memories"] if window else ()
    entry = next((m for m in memories if _issued(m, memory_id)), None)
    if entry is None and window is not None:
        entry = _summarised_turn(session, memories, memory_id)
    if entry is None:
        raise NotIssued(
            f"{memory_id!r} was not issued as a pointer or summary in the caller's current window "
            f"({window.manifest_id if window else 'none'})"
        )
    assert window is not None  # an entry comes from the window's manifest
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
    if entry["type"] in _CONVERSATION_KINDS:
        return _with_turns(session, window.manifest_id, entry, row, body, max_tokens)
    text = f"{metadata_line(expand=memory_id, window=window.manifest_id, was=entry['tier'])}\n{body}"
    return ToolOutput(text=text, rows=1, tokens=count_tokens(text), cited_ids=(memory_id,))


def _issued(m: dict, memory_id: str) -> bool:
    """The window issued `memory_id` to expand: as a pointer or summary, or it holds it as a turn or a
    conversation summary (whose neighbours or raw turns expand brings back)."""
    return m["memory_id"] == memory_id and (m["tier"] in (POINTER, SUMMARY) or m["type"] in _CONVERSATION_KINDS)


def _summarised_turn(session: Session, memories, memory_id: str) -> dict | None:
    """An entry for a raw turn a conversation summary the window holds was made from, else None."""
    for m in memories:
        if m["type"] != "summary" or m["ref"]["table"] != "summarization_memory":
            continue
        rows = session.fetch_all("context_rows_summarization_memory", ids=json.dumps([m["ref"]["id"]]))
        if not rows or not rows[0].get("conversation_id"):
            continue
        sources = json.loads(rows[0]["source_versions_json"] or "[]")
        source = next((r for r in sources if r["table"] == "conversation_memory" and r["id"] == memory_id), None)
        if source is not None:
            return {
                "memory_id": memory_id,
                "ref": {"table": "conversation_memory", "id": memory_id, "version": source["version"]},
                "type": "conversation",
                "tier": "summarised",
                "status": m["status"],
            }
    return None


def _with_turns(
    session: Session, window_id: str, entry: dict, row: dict, body: str, max_tokens: int | None
) -> ToolOutput:
    """A turn with its neighbours, or a summary with the raw turns it was made from, within max_tokens."""
    if entry["type"] == "conversation":
        index = int(row.get("turn_index") or 0)
        turns = session.fetch_all(
            "conversation_turns_between",
            conversation=row["conversation_id"],
            first=max(1, index - NEIGHBOURS),
            last=index + NEIGHBOURS,
        )
        turns = [t for t in turns if t["id"] != row["id"]]
    else:
        ids = [s["id"] for s in json.loads(row["source_versions_json"] or "[]") if s["table"] == "conversation_memory"]
        found = {r["id"]: r for r in session.fetch_all("context_rows_conversation_memory", ids=json.dumps(ids))}
        turns = [found[i] for i in ids if i in found]
    head = metadata_line(expand=entry["memory_id"], window=window_id, was=entry["tier"], turns=len(turns))
    records = [body] + [record("conversation", t, tier=FULL, status="unverified") for t in turns]
    if entry["type"] == "conversation":  # in conversation order, the expanded turn among its neighbours
        records = sorted(records, key=lambda r: _turn_of(r))
    kept = fit_records(records, lambda r: r, max_tokens, reserve=count_tokens(head) + 1) if max_tokens else records
    if len(kept) < len(records):
        head = metadata_line(
            expand=entry["memory_id"],
            window=window_id,
            was=entry["tier"],
            turns=len(turns),
            more=len(records) - len(kept),
        )
    text = "\n".join([head, *kept])
    cited = tuple(dict.fromkeys([entry["memory_id"], *(t["id"] for t in turns)]))
    return ToolOutput(
        text=text, rows=len(kept), truncated=len(kept) < len(records), tokens=count_tokens(text), cited_ids=cited
    )


def _turn_of(rendered: str) -> int:
    match = _TURN_ATTR.search(rendered)
    return int(match.group(1)) if match else 0


def expand_image(session: Session, image_id: str, now: str, *, include_bytes: bool, max_image_bytes: int) -> ToolOutput:
    """An image id a result the caller received showed: its record, and its bytes when asked."""
    issued = session.fetch_one("calllog_cited", id=image_id) is not None
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
