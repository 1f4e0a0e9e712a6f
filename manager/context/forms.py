"""What each memory type shows at each tier: its full body, its stored summary, its one line.

Bodies read only columns a row version never changes, so a manifest's referenced
versions render the same text again on replay. A turn's form depends on the renderer a
manifest names: from `window-3` on, a turn shows who said it (its speaker) and the day it
was said ("8 May 2023"); earlier manifests replay with the role and the ISO timestamp.
"""

from __future__ import annotations

import json
import re

from ..backend.base import Row
from ..conversations.dates import day
from ..output.records import clip

__all__ = ["LEGACY_TURNS", "attributes", "dedup_text", "full_body", "one_line", "summary_body"]

_SENTENCE = re.compile(r"(?<=[.!?])\s")
#: renderers whose turns show the role and an ISO timestamp (before speakers and days)
LEGACY_TURNS = frozenset({"window-1", "window-2"})


def full_body(kind: str, row: Row, renderer: str = "") -> str:
    if kind == "entity":
        body = f"{row['subject']} {row['predicate']} = {row['content']}"
        return body + (f"\nconditions: {row['content_json']}" if row.get("content_json") else "")
    if kind == "workflow":
        return f"{row['title']}\n{row['content']}" + (
            f"\nsteps: {_steps(row.get('steps_json'))}" if row.get("steps_json") else ""
        )
    if kind == "kb_chunk":
        return f"title: {' '.join(str(row['title']).split())}\n{row['content']}"
    if kind == "summary":
        return f"{row['title']}\n{row['content']}"
    if kind == "conversation":
        if renderer in LEGACY_TURNS:
            return f"{row.get('role') or 'note'}: {row['content']}"
        return f"{row.get('speaker') or row.get('role') or 'note'}: {row['content']}"
    if kind == "persona":
        return f"{row['name']}: {row['content']}"
    if kind == "tool":
        return f"{row['tool_name']}: {_first_sentence(row['usage_notes'])}"
    return str(row["content"])  # guideline


def summary_body(kind: str, row: Row) -> str | None:
    """The shorter form a row stores, if it has one: a workflow without its steps."""
    if kind == "workflow" and row.get("steps_json"):
        return f"{row['title']}\n{row['content']}"
    return None


def one_line(kind: str, row: Row, renderer: str = "") -> str:
    """A pointer's line: the full body's first line (a title, a claim, a turn), clipped."""
    return clip(" ".join(full_body(kind, row, renderer).split("\n", 1)[0].split()), 100)


def dedup_text(kind: str, row: Row) -> str:
    """The text two copies of one memory share, normalized: case, spacing and end punctuation."""
    text = f"{row['subject']} {row['predicate']} {row['content']}" if kind == "entity" else str(row["content"])
    return " ".join(text.casefold().split()).strip(" .;:,")


def attributes(kind: str, row: Row, renderer: str = "") -> dict[str, object]:
    """Type-specific record attributes, in the order they are shown."""
    if kind == "entity":
        return {"version": row["version"], "confidence": row.get("confidence"), "valid_from": row["valid_from"]}
    if kind == "kb_chunk":
        return {"document": row["document_id"], "position": row["position"]}
    if kind == "summary":
        period = f"{row['period_start']}..{row['period_end']}" if row.get("period_start") else None
        return {"period": period, "valid_from": row["valid_from"]}
    if kind == "conversation":
        if renderer in LEGACY_TURNS:
            return {"turn": row.get("turn_index"), "valid_from": row["valid_from"]}
        return {"turn": row.get("turn_index"), "said_on": day(row["valid_from"])}
    if kind == "guideline":
        return {"key": row["guideline_key"], "version": row["version"]}
    return {"version": row["version"]}


def _steps(raw: str | None) -> str:
    try:
        steps = json.loads(raw or "[]")
    except ValueError:
        return str(raw)
    if not isinstance(steps, list):
        return str(raw)
    return "; ".join(f"{n}. {s}" for n, s in enumerate(steps, start=1))


def _first_sentence(text: str) -> str:
    return clip(_SENTENCE.split(" ".join(text.split()), maxsplit=1)[0], 200)
