"""Compaction: a conversation's older turns summarised into summarization_memory rows.

When the turns a conversation has stored since its last compaction cost more than the volatile
tail's share of the intent's budget (or on `memgate compact`), they are summarised: the newest
turns that fit in half the tail share stay raw, the rest go to the summariser. The rules, from the
context-engineering article's compaction section:

- **From raw turns, never from a summary.** Each compaction summarises only the raw turns after
  the previous one's range; its input never holds an earlier summary (a summary of a summary
  drifts, and nothing warns you). A conversation compacted five times has five summaries, each
  made from the turns it names.
- **Identifiers, amounts and dates verbatim** (verbatim.py): the extractive summariser keeps every
  one a turn holds even when it shortens the turn's words, and a sampled summary that drops one
  gets them appended verbatim, or is replaced by the extractive one.
- **Guidelines are never summarised**: the summariser reads turns only; the pinned constraints are
  guidelines, shown whole in every window's guidelines slice.
- **A summarised turn stays reachable exactly**: the raw turns stay, the summary records their
  ids and versions, and `expand(summary id)` shows them (context/expand.py).

The summary is the conversation's (conversation_id, the caller's user and agent, no thread), so it
never crosses a user wall and is a recall candidate in the user's other threads; a `compaction`
event in the conversation records the turn range, the sources, the summariser and hashes, and the
summary's provenance names it.

Summarisers: the host's model through MCP sampling, when the client offers it and the tenant's
`compaction` guideline does not say "extractive" (bounded tokens, one request, a system prompt
that forbids adding facts), else `extractive`, deterministic and model-free.
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
from ..kb.embed import Embedder
from ..limits import ContextBudget
from ..tokens import count_tokens
from . import keys
from .events import write_event
from .hashing import sha256
from .recall_index import index_summary
from .verbatim import missing_from, verbatim_terms

__all__ = [
    "EXTRACTIVE",
    "SYSTEM_PROMPT",
    "CompactionPlan",
    "Latest",
    "checked_sample",
    "extractive",
    "latest",
    "plan",
    "summaries",
    "summariser_choice",
    "write",
]

EXTRACTIVE = "extractive-v2"
EVENT = "compaction"
GUIDELINE_KEY = "compaction"
#: the most a summary may cost, whatever the budget
MAX_SUMMARY_TOKENS = 600
#: turns `memgate compact` leaves raw
FORCED_KEEP = 2
SYSTEM_PROMPT = (
    "You compress a conversation for an assistant's memory. Summarise the turns below using only "
    "what they say: add no facts, names, numbers, reasons or conclusions that are not in them, and "
    "keep every identifier, amount, date and name exactly as written. Say who said what, what was "
    "decided and what is still open. Plain text, at most {tokens} tokens."
)
#: how a summary names the identifiers it keeps verbatim
VERBATIM_LABEL = "Verbatim:"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Latest:
    """The conversation's latest compaction: the turn range it covers and its summary row."""

    first: int
    last: int
    summary: Row


@dataclass(frozen=True)
class CompactionPlan:
    conversation_id: str
    #: the raw turns to summarise, oldest first (never a summary)
    turns: list[Row]
    previous: Latest | None
    #: the tail share of the intent's budget, and what the stored turns cost
    tail_tokens: int
    stored_tokens: int
    max_tokens: int

    @property
    def first(self) -> int:
        return int(self.turns[0]["turn_index"])

    @property
    def last(self) -> int:
        return int(self.turns[-1]["turn_index"])

    def text(self) -> str:
        """What the summariser reads: the raw turns as plain text, who said each."""
        return "\n".join(f"[{t['turn_index']}] {_who(t)}: {t['content']}" for t in self.turns)

    def verbatim(self) -> list[str]:
        """The identifiers, amounts and dates the turns hold, in order: a summary keeps each."""
        return verbatim_terms(str(t["content"] or "") for t in self.turns)


def _who(turn: Row) -> str:
    return str(turn.get("speaker") or turn["role"])


def latest(session: Session, conversation_id: str | None) -> Latest | None:
    """The conversation's latest compaction, or None."""
    if conversation_id is None:
        return None
    row = session.fetch_one("conversation_latest_compaction", conversation=conversation_id)
    if row is None:
        return None
    data = json.loads(row["content_json"])
    summary = session.fetch_all("context_rows_summarization_memory", ids=json.dumps([row["summary_id"]]))
    if not summary:
        return None
    return Latest(int(data["turns"]["first"]), int(data["turns"]["last"]), summary[0])


def summaries(session: Session, conversation_id: str, limit: int) -> list[Row]:
    """The conversation's summaries the caller may see, newest first."""
    return session.fetch_all("conversation_summaries", conversation=conversation_id, limit=limit)


def _cost(turn: Row) -> int:
    return int(turn.get("token_count") or count_tokens(f"{_who(turn)}: {turn['content'] or ''}"))


def plan(
    session: Session, identity: Identity, budget: ContextBudget, intent: str, *, force: bool = False
) -> CompactionPlan | None:
    """What to compact now, or None: under the tail share (unless `force`), or too few turns."""
    conversation = keys.find(session, identity)
    if conversation is None:
        return None
    tail_tokens = int(budget.available * budget.shares_for(intent).volatile_tail)
    previous = latest(session, conversation["id"])
    turns = session.fetch_all(
        "conversation_turns_after", conversation=conversation["id"], after=previous.last if previous else 0
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
    return CompactionPlan(conversation["id"], older, previous, tail_tokens, stored, max_tokens)


def summariser_choice(session: Session, now: str) -> str:
    """The tenant's choice ("sampling" or "extractive"; default sampling when the client offers it)."""
    row = guidelines.current_guidelines(session, now, GUIDELINE_KEY).get(GUIDELINE_KEY)
    data = guidelines.guideline_json(row) or {}
    return "extractive" if data.get("summariser") == "extractive" else "sampling"


def checked_sample(compaction: CompactionPlan, sampled: str | None) -> str | None:
    """A sampled summary as it may be kept: within the bound, with every identifier the turns hold
    verbatim (the ones it dropped appended after VERBATIM_LABEL); None to fall back to extractive."""
    if not sampled or not sampled.strip():
        return None
    text = sampled.strip()
    dropped = missing_from(text, compaction.verbatim())
    if dropped:
        text = f"{text}\n{VERBATIM_LABEL} {'; '.join(dropped)}"
    return text if count_tokens(text) <= compaction.max_tokens else None


def extractive(compaction: CompactionPlan) -> str:
    """A deterministic summary: each turn's first sentence, who said it, shortened until the whole fits
    max_tokens, with every identifier, amount and date of the turn kept verbatim; a turn that no longer
    fits is left out from the oldest, its identifiers still listed."""

    def line(t: Row, words: int) -> str:
        text = " ".join(str(t["content"] or "").split())
        first = _SENTENCE.split(text, maxsplit=1)[0]
        shown = _clip(first, words)
        kept = missing_from(shown, verbatim_terms([text]))
        return f"[{t['turn_index']}] {_who(t)}: {shown}" + (f" ({'; '.join(kept)})" if kept else "")

    for words in (30, 16, 8, 4):
        text = "\n".join(line(t, words) for t in compaction.turns)
        if count_tokens(text) <= compaction.max_tokens:
            return text
    kept = [line(t, 4) for t in compaction.turns]
    left_out: list[Row] = []
    while len(kept) > 1 and count_tokens(_with_left_out(kept, left_out)) > compaction.max_tokens:
        kept.pop(0)
        left_out.append(compaction.turns[len(left_out)])
    return _with_left_out(kept, left_out)


def _with_left_out(kept: list[str], left_out: list[Row]) -> str:
    if not left_out:
        return "\n".join(kept)
    terms = verbatim_terms(str(t["content"] or "") for t in left_out)
    head = f"(turns {left_out[0]['turn_index']}-{left_out[-1]['turn_index']} left out"
    head += f"; {VERBATIM_LABEL} {'; '.join(terms)})" if terms else ")"
    return "\n".join([head, *kept])


def _clip(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def write(
    session: Session,
    identity: Identity,
    compaction: CompactionPlan,
    summary: str,
    summariser: str,
    now: str,
    embedder: Embedder | None = None,
) -> Row:
    """Record the summary and its compaction event, if the turns are still as planned (inside a
    transaction): a concurrent compaction, or a turn that changed meanwhile, is a Conflict."""
    current = latest(session, compaction.conversation_id)
    if (current.last if current else 0) != (compaction.previous.last if compaction.previous else 0):
        raise Conflict("the conversation was compacted meanwhile; nothing was written")
    ids = [t["id"] for t in compaction.turns]
    now_rows = {r["id"]: r for r in session.fetch_all("context_rows_conversation_memory", ids=json.dumps(ids))}
    if any(
        i not in now_rows or now_rows[i]["version"] != t["version"] for i, t in zip(ids, compaction.turns, strict=True)
    ):
        raise Conflict("a turn changed while it was summarised; nothing was written")
    sources = [{"table": "conversation_memory", "id": t["id"], "version": int(t["version"])} for t in compaction.turns]
    summary_id, event_id = new_id("sum"), new_id("cnv")
    record: dict[str, Any] = {
        "summary_id": summary_id,
        "turns": {"first": compaction.first, "last": compaction.last},
        "sources": sources,
        "summariser": summariser,
        "sha256": sha256(summary),
        "input_sha256": sha256(compaction.text()),
        "verbatim": compaction.verbatim(),
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
        conversation_id=compaction.conversation_id,
        thread_scoped=False,
    )
    row = {
        "id": summary_id,
        "tenant_id": identity.tenant,
        "user_id": identity.user,
        "agent_id": identity.agent,
        "thread_id": None,
        "conversation_id": compaction.conversation_id,
        "title": f"Conversation turns {compaction.first}-{compaction.last}",
        "content": summary,
        "period_start": compaction.turns[0]["valid_from"],
        "period_end": compaction.turns[-1]["valid_from"],
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
    index_summary(session, embedder, row, compaction.first, compaction.last, now)
    return row


#: (the plan's text, system prompt, max tokens) -> summary text, or None to fall back to extractive
Sampler = Callable[[str, str, int], "str | None"]
