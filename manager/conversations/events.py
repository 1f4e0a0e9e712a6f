"""Conversation events: each one conversation_memory row, stamped with the caller's scope.

A turn (and a compaction record) is the conversation's: it carries `conversation_id` and no
thread_id, so the same user's other threads can recall it (the wall still keeps it to the user
and agent it names). What is meant for one thread only (a window's tool results, clarify
questions and answers) keeps the thread, and, with no thread, the window's session key; a
clarify answer is also numbered in its conversation, so it carries both.
"""

from __future__ import annotations

import json
from typing import Any

from ..backend.base import Row, Session
from ..identity import Identity
from ..ids import new_id

__all__ = ["write_event"]


def write_event(
    session: Session,
    identity: Identity,
    *,
    prefix: str,
    event_type: str,
    role: str,
    content: str,
    now: str,
    data: dict[str, Any] | None = None,
    window_id: str | None = None,
    turn_index: int | None = None,
    tokens: int | None = None,
    source: tuple[str, str, int | None] | None = None,
    id: str | None = None,
    conversation_id: str | None = None,
    thread_scoped: bool = True,
    speaker: str | None = None,
    said_at: str | None = None,
) -> Row:
    """Insert one event. `thread_scoped=False` (turns, compaction records) leaves the thread out;
    `said_at` (when a turn was said, if not now) is its valid_from."""
    row = {
        "id": id or new_id(prefix),
        "tenant_id": identity.tenant,
        "user_id": identity.user,
        "agent_id": identity.agent,
        "thread_id": identity.thread if thread_scoped else None,
        "session_id": None if identity.thread else identity.session,
        "conversation_id": conversation_id,
        "window_id": window_id,
        "event_type": event_type,
        "role": role,
        "speaker": speaker,
        "content": content,
        "content_json": json.dumps(data, sort_keys=True) if data is not None else None,
        "turn_index": turn_index,
        "token_count": tokens,
        "version": 1,
        "valid_from": said_at or now,
        "source_table": source[0] if source else None,
        "source_id": source[1] if source else None,
        "source_version": source[2] if source else None,
        "created_by": identity.principal or identity.user,
        "created_at": now,
    }
    session.insert("conversation_memory", row)
    return row
