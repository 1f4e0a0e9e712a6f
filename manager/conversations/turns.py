"""Turns from every path a conversation reaches memgate, beside `messages.write_turn`.

- The `context_window` prompt records its question as the caller's user turn of its conversation
  (`record_question`), after the window is assembled, so the next window's tail shows it. The
  turn carries the request hash of the manifest's request: a host that renders the prompt again
  for the same request finds it as the conversation's latest turn and nothing is written twice.
- The optional `record_turn` handler (a preset toolbox row) lets an agent append its own turns
  (`turn_written` is its answer).
- `memgate turn ls` lists the turns of a thread name's conversations, whoever's they are
  (`operator_turns`, operator only).
"""

from __future__ import annotations

import json
from typing import Any

from ..backend.base import Backend, Row, Session
from ..identity import Identity
from ..kb.embed import Embedder
from ..output.records import metadata_line, with_token_count
from ..output.results import ToolOutput
from ..tokens import count_tokens
from . import keys
from .hashing import canonical, sha256
from .messages import write_turn

__all__ = ["QUESTION_SOURCE", "operator_turns", "record_question", "request_hash", "turn_written"]

#: content_json.via of a turn the context_window prompt recorded
QUESTION_SOURCE = "context_window"


def request_of(identity: Identity, question: str, intent: str) -> dict[str, Any]:
    """What was asked, and for whom: the part of a window's manifest its request hash covers."""
    return {
        "question": question,
        "intent": intent,
        "tenant": identity.tenant,
        "user": identity.user,
        "agent": identity.agent,
        "thread": identity.thread,
        "session": None if identity.thread else identity.session,
    }


def request_hash(identity: Identity, question: str, intent: str) -> str:
    """The manifest's request hash for this request."""
    return sha256(canonical(request_of(identity, question, intent)))


def record_question(
    session: Session, identity: Identity, question: str, intent: str, now: str, embedder: Embedder | None = None
) -> Row:
    """The question as the caller's user turn, unless its conversation's latest turn is this very
    request (a re-render). Call inside a transaction."""
    digest = request_hash(identity, question, intent)
    conversation = keys.find(session, identity)
    if conversation is not None:
        latest = session.fetch_all("conversation_tail", conversation=conversation["id"], limit=1)
        if latest:
            (row,) = session.fetch_all("context_rows_conversation_memory", ids=json.dumps([latest[0]["id"]]))
            if json.loads(row["content_json"] or "{}").get("request_hash") == digest:
                return row
    return write_turn(
        session,
        identity,
        "user",
        question,
        now,
        data={"request_hash": digest, "via": QUESTION_SOURCE, "intent": intent},
        tokens=count_tokens(question),
        embedder=embedder,
    )


def turn_written(row: Row) -> ToolOutput:
    """The record_turn handler's answer: the turn's id and index."""
    text = with_token_count(
        lambda tokens: metadata_line(turn=row["id"], index=row.get("turn_index"), tokens=tokens), "recorded"
    )
    return ToolOutput(
        text=text,
        rows=1,
        tokens=count_tokens(text),
        cited_ids=(row["id"],),
        structured={"turn_id": row["id"], "turn_index": row.get("turn_index")},
    )


def operator_turns(backend: Backend, tenant: str, thread: str, limit: int = 200) -> list[Row]:
    """The turns and summaries of thread name `thread`'s conversations (one per user and agent that
    used the name), each conversation's in order (operator CLI only)."""
    with backend.operator_session() as s:
        rows, _ = s.fetch_page("operator_thread_turns", limit, tenant=tenant, thread=thread)
        return rows
