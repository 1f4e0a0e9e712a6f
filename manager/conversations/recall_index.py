"""The recall index: every turn and compaction summary, written as recall text with its embedding.

One conversation_recall row per turn or summary, in the same transaction as its source, so what a user
said is a recall candidate as soon as it is stored. The text is what both legs rank, with who said it
and when in it (LoCoMo's note: the field injects the speaker and the date), e.g.

    Caroline (8 May 2023): I went to a LGBTQ support group yesterday and it was so powerful.
    Summary of turns 1-38 (8 May 2023 to 9 May 2023): ...

Embeddings are made in one batch per write (an import writes a session at a time). The row has its
source's user and agent and no thread, so the wall shows it to the same callers as its source, in any
of their threads; it goes when its source goes (delete triggers, and `memgate forget`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..backend.base import Row, Session
from ..kb.embed import Embedder
from .dates import day

__all__ = [
    "embed_missing",
    "embedding_text",
    "index_summary",
    "index_turns",
    "recall_text",
    "summary_text",
    "turn_words",
]

#: rows embedded per batch by embed_missing
_BATCH = 256


def recall_text(speaker: str, said_at: str, content: str) -> str:
    """What recall ranks for a turn: who said it, the day, the words."""
    return f"{speaker} ({day(said_at)}): {content}"


def turn_words(speaker: str, said_at: str, content: str) -> str:
    """A turn's own words from its recall text (the text itself when it does not start as recall_text's)."""
    prefix = f"{speaker} ({day(said_at)}): "
    return content.removeprefix(prefix)


def embedding_text(content: str, previous: str | None) -> str:
    """What a turn is embedded as: its recall text and the words of the turn it replies to (a reply such
    as "Yes, last Friday!" says little alone; recall_rank.embedding_text, measured in docs/benchmarks.md)."""
    return f"{content} (replying to: {previous})" if previous else content


def summary_text(first: int, last: int, start: str, end: str, content: str) -> str:
    """What recall ranks for a compaction summary: its turn range, its days, its text."""
    days = day(start) if day(start) == day(end) else f"{day(start)} to {day(end)}"
    return f"Summary of turns {first}-{last} ({days}): {content}"


def index_turns(session: Session, embedder: Embedder | None, turns: Sequence[Row], now: str) -> None:
    """Index written turn events (conversation_memory rows of event_type turn) for recall, in the writer's
    transaction; without an embedder the rows wait for one (`memgate reembed`), found by words only."""
    rows = [
        {
            "id": t["id"],
            "tenant_id": t["tenant_id"],
            "user_id": t["user_id"],
            "agent_id": t["agent_id"],
            "conversation_id": t["conversation_id"],
            "kind": "turn",
            "turn_index": t["turn_index"],
            "first_turn": None,
            "speaker": t["speaker"] or t["role"],
            "said_at": t["valid_from"],
            "content": recall_text(t["speaker"] or t["role"], t["valid_from"], t["content"] or ""),
            "created_at": now,
        }
        for t in turns
        if t.get("conversation_id") and t.get("content")
    ]
    if embedder is None or not rows:
        _insert(session, embedder, rows)
        return
    written = {(t["conversation_id"], t["turn_index"]): t["content"] for t in turns if t.get("content")}
    previous = _previous_words(session, rows, written)
    _insert(session, embedder, rows, [embedding_text(r["content"], previous.get(r["id"])) for r in rows])


def index_summary(session: Session, embedder: Embedder | None, summary: Row, first: int, last: int, now: str) -> None:
    """Index a compaction summary for recall, in the compaction's transaction."""
    start, end = summary["period_start"] or summary["valid_from"], summary["period_end"] or summary["valid_from"]
    row = {
        "id": summary["id"],
        "tenant_id": summary["tenant_id"],
        "user_id": summary["user_id"],
        "agent_id": summary["agent_id"],
        "conversation_id": summary["conversation_id"],
        "kind": "summary",
        "turn_index": last,
        "first_turn": first,
        "speaker": None,
        "said_at": end,
        "content": summary_text(first, last, start, end, summary["content"]),
        "created_at": now,
    }
    _insert(session, embedder, [row])


def _previous_words(session: Session, rows: Sequence[Row], written: dict[tuple[str, int], str]) -> dict[str, str]:
    """Each turn row's previous turn's words (by row id): from `written` (the turns of this write), else
    from the recall index (one statement for all of them)."""
    places = {r["id"]: (r["conversation_id"], int(r["turn_index"]) - 1) for r in rows if r["kind"] == "turn"}
    places = {i: p for i, p in places.items() if p[1] >= 1}
    missing = sorted({p for p in places.values() if p not in written})
    known = dict(written)
    if missing:
        for r in session.fetch_all("recall_turns_at", turns=json.dumps([list(p) for p in missing])):
            known[(r["conversation_id"], r["turn_index"])] = turn_words(r["speaker"] or "", r["said_at"], r["content"])
    return {i: known[p] for i, p in places.items() if known.get(p)}


def _insert(
    session: Session, embedder: Embedder | None, rows: list[dict[str, Any]], texts: list[str] | None = None
) -> None:
    if not rows:
        return
    if embedder is None:
        vectors: list[Any] = [None] * len(rows)
        model = None
    else:
        embedded = texts if texts is not None else [r["content"] for r in rows]
        vectors = list(np.asarray(embedder.embed(embedded), dtype=np.float32))
        model = embedder.name
    session.insert_many(
        "conversation_recall",
        [{**r, "embedding": v, "embedding_model": model if v is not None else None} for r, v in zip(rows, vectors)],
    )


def embed_missing(session: Session, embedder: Embedder, limit: int = _BATCH) -> int:
    """Give up to `limit` of the caller's recall rows that have no embedding of `embedder` one, in the
    caller's transaction; returns how many (fewer than `limit`: none is left)."""
    rows = session.fetch_all("recall_unembedded", model=embedder.name, limit=limit)
    if not rows:
        return 0
    previous = _previous_words(session, rows, {})
    texts = [embedding_text(r["content"], previous.get(r["id"])) for r in rows]
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    for r, v in zip(rows, vectors, strict=True):
        session.execute("recall_set_embedding", seq=r["seq"], embedding=v, model=embedder.name)
    return len(rows)
