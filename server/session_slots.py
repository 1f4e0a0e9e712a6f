"""A cap on the handshake-era (2025-11-25 and older) MCP sessions one principal may hold open.

The SDK keeps up to 10,000 stateful sessions per process, each until it has been idle for
server.session_idle_seconds (30 minutes), and answers everyone 503 once they are taken, so
one token could exhaust a replica. A request that would open another session (a POST to
/mcp without Mcp-Session-Id, in a handshake-era protocol version) while its principal (the
token's issuer, subject and client, as the SDK binds sessions to them) already holds
server.max_sessions_per_principal open sessions is answered 429 with a JSON-RPC error
saying so; its other sessions, and everybody else's, are untouched. 2026-07-28 requests
open no session and are not counted, and a stateless server (server.stateless, several
workers) opens none, so app.py does not install the cap there.

The open sessions are counted from what crosses the wire, not read from the SDK's private
state (an SDK that renamed it would have turned the cap off without a sound):
- an opening request answered 200 with an Mcp-Session-Id header opens that session for the
  request's principal;
- a DELETE of it answered 2xx, or any request of its owner for it answered 404 (the SDK's
  "Session not found": expired, deleted or crashed), ends it;
- with no request of its owner in flight (an open GET stream counts) for session_idle_seconds
  it has expired: the rule the SDK's own idle timeout follows, which app.py sets to the same
  value. Our clock stops after the SDK's, so we free a slot a moment after it does, never before;
  and should the SDK still serve a session we had forgotten, its owner's next request answered
  2xx counts it again.
Requests still opening a session count too, so concurrent opens cannot overshoot the cap.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .settings import DEFAULT_SESSION_IDLE_SECONDS

log = logging.getLogger("memgate.server.http")

#: JSON-RPC error code of the refusal (implementation-defined server error range)
TOO_MANY_SESSIONS = -32001

#: the token's issuer, subject and client id: what the SDK binds a session to
Principal = tuple[str | None, str | None, str | None]


def too_many_sessions(limit: int, idle_seconds: float = DEFAULT_SESSION_IDLE_SECONDS) -> str:
    return (
        f"This identity already holds {limit} open MCP sessions, the most one identity may hold "
        "(server.max_sessions_per_principal); end one with HTTP DELETE and its Mcp-Session-Id, "
        f"or wait until one has been idle for {_duration(idle_seconds)}."
    )


def _duration(seconds: float) -> str:
    if seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    return f"{seconds:g} second{'s' if seconds != 1 else ''}"


@dataclass
class _Session:
    owner: Principal
    in_flight: int = 0
    idle_since: float = 0.0


class OpenSessions:
    """The handshake-era sessions this process opened, by owner, as seen on the wire."""

    def __init__(self, idle_seconds: float, clock: Callable[[], float] = time.monotonic):
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._sessions: dict[str, _Session] = {}
        self._by_owner: dict[Principal, set[str]] = {}
        self._swept = clock()

    def opened(self, session_id: str, owner: Principal) -> None:
        """The opening request (still in flight) got `session_id` for `owner`."""
        self._sessions[session_id] = _Session(owner, in_flight=1)
        self._by_owner.setdefault(owner, set()).add(session_id)

    def knows(self, session_id: str) -> bool:
        return session_id in self._sessions

    def begin(self, session_id: str, requester: Principal) -> bool:
        """A request for `session_id` starts; False (and nothing counted) unless its owner sent it."""
        session = self._sessions.get(session_id)
        if session is None or session.owner != requester:
            return False
        session.in_flight += 1
        return True

    def finish(self, session_id: str) -> None:
        session = self._sessions.get(session_id)
        if session is not None:
            session.in_flight -= 1
            if not session.in_flight:
                session.idle_since = self.clock()

    def ended(self, session_id: str) -> None:
        session = self._sessions.pop(session_id, None)
        if session is not None:
            ids = self._by_owner[session.owner]
            ids.discard(session_id)
            if not ids:
                del self._by_owner[session.owner]

    def held(self, owner: Principal) -> int:
        """How many unexpired sessions `owner` holds (forgetting expired ones, everybody's now and then)."""
        now = self.clock()
        if now - self._swept >= min(self.idle_seconds, 60.0):
            self._swept = now
            for session_id in [s for s, v in self._sessions.items() if self._expired(v, now)]:
                self.ended(session_id)
        for session_id in [s for s in self._by_owner.get(owner, ()) if self._expired(self._sessions[s], now)]:
            self.ended(session_id)
        return len(self._by_owner.get(owner, ()))

    def _expired(self, session: _Session, now: float) -> bool:
        return not session.in_flight and now - session.idle_since >= self.idle_seconds


class SessionSlots:
    """ASGI middleware after the bearer backend: 429 for a session one principal may not open."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        limit: int,
        path: str,
        idle_seconds: float = DEFAULT_SESSION_IDLE_SECONDS,
    ):
        self.app = app
        self.limit = limit
        self.path = path
        self.idle_seconds = idle_seconds
        self.sessions = OpenSessions(idle_seconds)
        self._opening: Counter[Principal] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user") if scope["type"] == "http" else None
        if not isinstance(user, AuthenticatedUser) or not self._handshake_era_mcp(scope):
            await self.app(scope, receive, send)
            return
        context = authorization_context(user)
        who: Principal = (context.get("issuer"), context.get("subject"), context.get("client_id"))
        session_id = Headers(scope=scope).get("mcp-session-id")
        if session_id is not None:
            await self._in_session(session_id, who, scope, receive, send)
        elif scope.get("method") == "POST":
            await self._open(who, scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _open(self, who: Principal, scope: Scope, receive: Receive, send: Send) -> None:
        held = self.sessions.held(who) + self._opening[who]
        if held >= self.limit:
            log.warning(
                "session refused (429): principal %s/%s already holds %d open sessions",
                who[0],
                who[1] or who[2],
                held,
            )
            body = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": TOO_MANY_SESSIONS, "message": too_many_sessions(self.limit, self.idle_seconds)},
            }
            await Response(json.dumps(body), status_code=429, media_type="application/json")(scope, receive, send)
            return
        self._opening[who] += 1
        opening = True
        opened: str | None = None

        def stop_opening() -> None:
            nonlocal opening
            if opening:
                opening = False
                self._opening[who] -= 1
                if not self._opening[who]:
                    del self._opening[who]

        async def watch(message: Message) -> None:
            nonlocal opened
            if message["type"] == "http.response.start":
                # counted as open before anything is sent, so no concurrent open slips in between
                session_id = Headers(raw=message.get("headers", [])).get("mcp-session-id")
                if message["status"] == 200 and session_id:
                    self.sessions.opened(session_id, who)
                    opened = session_id
                stop_opening()
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            stop_opening()
            if opened is not None:
                self.sessions.finish(opened)

    async def _in_session(self, session_id: str, who: Principal, scope: Scope, receive: Receive, send: Send) -> None:
        tracked = self.sessions.begin(session_id, who)  # False: not a session we know, or not theirs
        deleting = scope.get("method") == "DELETE"
        status: int | None = None

        async def watch(message: Message) -> None:
            nonlocal status, tracked
            if message["type"] == "http.response.start":
                status = message["status"]
                if not tracked and 200 <= status < 300 and not deleting and not self.sessions.knows(session_id):
                    # The SDK served it, so the session is open and `who` owns it, though we had
                    # forgotten it (say our clock expired it a moment before the SDK's): count it again.
                    self.sessions.opened(session_id, who)
                    tracked = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if tracked:
                self.sessions.finish(session_id)
                if status == 404 or (deleting and status is not None and 200 <= status < 300):
                    self.sessions.ended(session_id)

    def _handshake_era_mcp(self, scope: Scope) -> bool:
        """A request to the MCP path that the SDK routes to its session handling."""
        if scope.get("path", "").rstrip("/") != self.path:
            return False
        version = Headers(scope=scope).get("mcp-protocol-version")
        return version is None or version in HANDSHAKE_PROTOCOL_VERSIONS
