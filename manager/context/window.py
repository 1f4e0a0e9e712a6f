"""Which window a caller is in: its thread's, or with no thread its server session's.

A window is the latest context_manifest event for that key, while it lasts: it ends when
a newer window is assembled for the key (a new question), or once `context.window_idle_s`
passed since its latest event (the manifest, a tool round, a clarify answer). An ended
window is no window: it neither bounds nor refuses a call, and issues nothing to expand.
A refused call records no event, so it does not keep a spent window alive. Over stdio a server session
is the server process (one client connection for its whole life; its id is made at
start-up), because in the 2026-07-28 protocol era the MCP session id is new on every
request. Over HTTP with no thread, the legacy era's mcp-session-id is the key; a
modern-era HTTP caller needs a thread for its window to last beyond one request.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ..backend.base import Session
from ..clock import parse_iso
from ..identity import Identity

__all__ = ["CurrentWindow", "WindowKey", "current_window"]


@dataclass(frozen=True)
class WindowKey:
    thread: str | None
    session: str | None
    #: the caller's user and agent, exactly: the wall also shows a user the rows of no agent (agent_id
    #: NULL), and a window is its caller's own, as its conversation is
    user: str | None = None
    agent: str | None = None

    @classmethod
    def of(cls, identity: Identity) -> WindowKey:
        return cls(identity.thread, None if identity.thread else identity.session, identity.user, identity.agent)

    @property
    def usable(self) -> bool:
        """False when nothing keys the window: it is assembled and recorded, but no later call finds it."""
        return bool(self.thread or self.session)


@dataclass(frozen=True)
class CurrentWindow:
    manifest_id: str
    manifest: dict[str, Any]


def current_window(
    session: Session, key: WindowKey, *, now: str | None = None, idle_s: float | None = None
) -> CurrentWindow | None:
    """The caller's latest window, unless it ended `idle_s` after its last event (by `now`).

    The wall keeps other users' and other threads' manifests out. Without `now` and
    `idle_s` a window never ends by idling (replay and tests that read a window as it was).
    """
    if not key.usable:
        return None
    row = session.fetch_one(
        "context_current_window", thread=key.thread, session=key.session, user_id=key.user, agent_id=key.agent
    )
    if row is None:
        return None
    if now is not None and idle_s is not None and _idle(row["last_at"] or row["created_at"], now, idle_s):
        return None
    return CurrentWindow(row["id"], json.loads(row["content_json"]))


def _idle(last_at: str, now: str, idle_s: float) -> bool:
    return parse_iso(now) - parse_iso(last_at) > timedelta(seconds=idle_s)
