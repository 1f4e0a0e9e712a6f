"""Thread events after a window: tool results, clarify answers, turns; each one conversation_memory row.

Every event is stamped with the caller's user, agent and thread (and, with no thread,
its server session), so the wall shows it to that caller only, like the manifest.
"""

from __future__ import annotations

import json
from typing import Any

from ..backend.base import Row, Session
from ..identity import Identity
from ..ids import new_id
from .window import WindowKey

__all__ = ["next_turn", "write_event"]


def next_turn(session: Session, key: WindowKey) -> int | None:
    """The next turn index of the caller's conversation, or None when nothing keys it."""
    if not key.usable:
        return None
    return session.fetch_one("context_next_turn", thread=key.thread, session=key.session)["turn_index"]


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
) -> Row:
    key = WindowKey.of(identity)
    row = {
        "id": id or new_id(prefix),
        "tenant_id": identity.tenant,
        "user_id": identity.user,
        "agent_id": identity.agent,
        "thread_id": identity.thread,
        "session_id": key.session,
        "window_id": window_id,
        "event_type": event_type,
        "role": role,
        "content": content,
        "content_json": json.dumps(data, sort_keys=True) if data is not None else None,
        "turn_index": turn_index,
        "token_count": tokens,
        "version": 1,
        "valid_from": now,
        "source_table": source[0] if source else None,
        "source_id": source[1] if source else None,
        "source_version": source[2] if source else None,
        "created_by": identity.principal or identity.user,
        "created_at": now,
    }
    session.insert("conversation_memory", row)
    return row
