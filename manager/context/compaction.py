"""Compaction: a conversation's oldest turns summarised into one summarization_memory row.

When the turns a conversation has stored since its last compaction cost more than the volatile
tail's share of the intent's budget (or on `memgate compact`), the oldest are summarised: the
newest turns that fit in half the tail share stay raw, the rest (with the previous summary, so
one rolling summary covers the conversation from its first turn) go to the summariser. The
summary row is in the caller's scope (user, agent, thread), so it never crosses a wall and is
erased with the turns; it records the turn range, the source ids and versions, the summariser and
hashes, through a `compaction` event in the thread (content_json) that the summary's provenance
names (source_table conversation_memory, source_id the event). The raw turns stay.

The window then carries the latest summary in its volatile tail, before the turns after its
range (candidates.gather); the tiers fit it like any memory.

Summarisers: the host's model through MCP sampling, when the client offers it and the tenant's
`compaction` guideline does not say "extractive" (bounded tokens, one request, a system prompt
that forbids adding facts), else `extractive`, deterministic and model-free: each turn's first
words, in order, within the token bound.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..backend.base import Row, Session
from ..claims import guidelines
from ..errors import Conflict
from ..identity import Identity
from ..ids import new_id
from ..limits import ContextBudget
from ..tokens import count_tokens
from . import manifest as manifests
from .events import write_event
from .window import WindowKey

__all__ = [
    "EXTRACTIVE",
    "SYSTEM_PROMPT",
    "CompactionPlan",
    "Latest",
    "extractive",
    "latest",
    "plan",
    "summariser_choice",
    "write",
]

EXTRACTIVE = "extractive-v1"
EVENT = "compaction"
GUIDELINE_KEY = "compaction"
#: the most a summary may cost, whatever the budget
MAX_SUMMARY_TOKENS = 600
#: turns `memgate compact` leaves raw
FORCED_KEEP = 2
SYSTEM_PROMPT = (
    "You compress a conversation for an assistant's memory. Summarise the turns below using only "
    "what they say: add no facts, names, numbers, reasons or conclusions that are not in them, and "
    "keep every figure and name exactly as written. Say who said what (user, assistant), what was "
    "decided and what is still open. Plain text, at most {tokens} tokens."
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Latest:
    """The conversation's latest compaction: the last turn it covers and its summary row."""

    first: int
    last: int
    summary: Row


@dataclass(frozen=True)
class CompactionPlan:
    #: the turns to summarise, oldest first
    turns: list[Row]
    previous: Latest | None
    #: the tail share of the intent's budget, and what the stored turns cost
    tail_tokens: int
    stored_tokens: int
    max_tokens: int

    @property
    def first(self) -> int:
        return self.previous.first if self.previous else int(self.turns[0]["turn_index"])

    @property
    def last(self) -> int:
        return int(self.turns[-1]["turn_index"])

    def text(self) -> str:
        """What the summariser reads: the previous summary, then the turns as plain text."""
        lines = []
        if self.previous:
            p = self.previous
            lines.append(f"Summary of turns {p.first}-{p.last}: {p.summary['content']}")
        return "\n".join(lines + [f"[{t['turn_index']}] {t['role']}: {t['content']}" for t in self.turns])


def latest(session: Session, key: WindowKey) -> Latest | None:
    if not key.usable:
        return None
    row = session.fetch_one("context_latest_compaction", thread=key.thread, session=key.session)
    if row is None:
        return None
    data = json.loads(row["content_json"])
    summary = session.fetch_all("context_rows_summarization_memory", ids=json.dumps([row["summary_id"]]))
    if not summary:
        return None
    return Latest(int(data["turns"]["first"]), int(data["turns"]["last"]), summary[0])


def _cost(turn: Row) -> int:
    return int(turn.get("token_count") or count_tokens(f"{turn['role']}: {turn['content'] or ''}"))


def plan(
    session: Session, identity: Identity, budget: ContextBudget, intent: str, *, force: bool = False
) -> CompactionPlan | None:
    """What to compact now, or None: under the tail share (unless `force`), or too few turns."""
    key = WindowKey.of(identity)
    if not key.usable:
        return None
    tail_tokens = int(budget.available * budget.shares_for(intent).volatile_tail)
    previous = latest(session, key)
    turns = session.fetch_all(
        "context_thread_turns", thread=key.thread, session=key.session, after=previous.last if previous else 0
    )
    stored = sum(_cost(t) for t in turns)
    if force:
        keep = FORCED_KEEP
    elif stored <= tail_tokens:
        return None
    else:
        keep, kept = 0, 0
        for t in reversed(turns):
            if kept + _cost(t) > tail_tokens // 2:
                break
            kept += _cost(t)
            keep += 1
    older = turns[: max(0, len(turns) - keep)]
    if not older:
        return None
    max_tokens = max(64, min(MAX_SUMMARY_TOKENS, tail_tokens // 2))
    return CompactionPlan(older, previous, tail_tokens, stored, max_tokens)


def summariser_choice(session: Session, now: str) -> str:
    """The tenant's choice ("sampling" or "extractive"; default sampling when the client offers it)."""
    row = guidelines.current_guidelines(session, now, GUIDELINE_KEY).get(GUIDELINE_KEY)
    data = guidelines.guideline_json(row) or {}
    return "extractive" if data.get("summariser") == "extractive" else "sampling"


def extractive(compaction: CompactionPlan) -> str:
    """A deterministic summary: the previous summary's words, then each turn's first sentence, cut
    shorter until the whole fits max_tokens; a turn that no longer fits is left out from the oldest."""

    def lines(words: int) -> list[str]:
        out = []
        if compaction.previous:
            out.append("Earlier: " + _clip(compaction.previous.summary["content"], words * 2))
        for t in compaction.turns:
            first = _SENTENCE.split(" ".join((t["content"] or "").split()), maxsplit=1)[0]
            out.append(f"[{t['turn_index']}] {t['role']}: {_clip(first, words)}")
        return out

    for words in (30, 16, 8, 4):
        text = "\n".join(lines(words))
        if count_tokens(text) <= compaction.max_tokens:
            return text
    kept = lines(4)
    while len(kept) > 1 and count_tokens("\n".join(["(earlier turns left out)", *kept])) > compaction.max_tokens:
        kept.pop(0)
    return "\n".join(["(earlier turns left out)", *kept])


def _clip(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def write(
    session: Session, identity: Identity, compaction: CompactionPlan, summary: str, summariser: str, now: str
) -> Row:
    """Record the summary and its compaction event, if the turns are still as planned (inside a
    transaction): a concurrent compaction, or a turn that changed meanwhile, is a Conflict."""
    key = WindowKey.of(identity)
    current = latest(session, key)
    if (current.last if current else 0) != (compaction.previous.last if compaction.previous else 0):
        raise Conflict("the conversation was compacted meanwhile; nothing was written")
    ids = [t["id"] for t in compaction.turns]
    now_rows = {r["id"]: r for r in session.fetch_all("context_rows_conversation_memory", ids=json.dumps(ids))}
    if any(
        i not in now_rows or now_rows[i]["version"] != t["version"] for i, t in zip(ids, compaction.turns, strict=True)
    ):
        raise Conflict("a turn changed while it was summarised; nothing was written")
    sources = [{"table": "conversation_memory", "id": t["id"], "version": int(t["version"])} for t in compaction.turns]
    if compaction.previous:
        sources.insert(0, _ref("summarization_memory", compaction.previous.summary))
    summary_id, event_id = new_id("sum"), new_id("cnv")
    record: dict[str, Any] = {
        "summary_id": summary_id,
        "turns": {"first": compaction.first, "last": compaction.last},
        "sources": sources,
        "summariser": summariser,
        "sha256": manifests.sha256(summary),
        "input_sha256": manifests.sha256(compaction.text()),
        "tail_tokens": compaction.tail_tokens,
        "stored_tokens": compaction.stored_tokens,
    }
    write_event(
        session,
        identity,
        prefix="cnv",
        id=event_id,
        event_type=EVENT,
        role="system",
        content=f"compacted turns {compaction.first}-{compaction.last} into {summary_id}",
        now=now,
        data=record,
    )
    row = {
        "id": summary_id,
        "tenant_id": identity.tenant,
        "user_id": identity.user,
        "agent_id": identity.agent,
        "thread_id": identity.thread,
        "title": f"Conversation turns {compaction.first}-{compaction.last}",
        "content": summary,
        "period_start": (compaction.previous.summary["period_start"] if compaction.previous else None)
        or compaction.turns[0]["created_at"],
        "period_end": compaction.turns[-1]["created_at"],
        "source_versions_json": json.dumps(sources),
        "version": 1,
        "valid_from": now,
        "source_table": "conversation_memory",
        "source_id": event_id,
        "source_version": 1,
        "created_by": identity.principal or identity.user,
        "created_at": now,
    }
    session.insert("summarization_memory", row)
    return row


def _ref(table: str, row: Row) -> dict[str, Any]:
    return {"table": table, "id": row["id"], "version": int(row.get("version") or 1)}


#: (the plan's text, system prompt, max tokens) -> summary text, or None to fall back to extractive
Sampler = Callable[[str, str, int], "str | None"]
