"""A cap on the handshake-era (2025-11-25 and older) MCP sessions one principal may hold open.

The SDK keeps up to 10,000 stateful sessions per process, each until it has been idle for
30 minutes, and answers everyone 503 once they are taken, so one token could exhaust a
replica. A request that would open another session (a POST to /mcp without
Mcp-Session-Id, in a handshake-era protocol version) while its principal (the token's
issuer, subject and client, as the SDK binds sessions to them) already holds
server.max_sessions_per_principal open sessions is answered 429 with a JSON-RPC error
saying so; its other sessions, and everybody else's, are untouched. 2026-07-28 requests
open no session and are not counted.

The open sessions are read from the SDK's session manager (its owner table, the one the
SDK checks every request against), so a session ended by DELETE or by the idle timeout
frees its slot at once. Requests still opening a session count too, so concurrent opens
cannot overshoot the cap.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("memgate.server.http")

#: JSON-RPC error code of the refusal (implementation-defined server error range)
TOO_MANY_SESSIONS = -32001


def too_many_sessions(limit: int) -> str:
    return (
        f"This identity already holds {limit} open MCP sessions, the most one identity may hold "
        "(server.max_sessions_per_principal); end one with HTTP DELETE and its Mcp-Session-Id, "
        "or wait until one has been idle for 30 minutes."
    )


class SessionSlots:
    """ASGI middleware after the bearer backend: 429 for a session one principal may not open."""

    def __init__(self, app: ASGIApp, *, limit: int, owners: Callable[[], Mapping[str, Any]], path: str):
        self.app = app
        self.limit = limit
        self.owners = owners
        self.path = path
        self._opening: Counter[tuple[Any, ...]] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user") if scope["type"] == "http" else None
        if not isinstance(user, AuthenticatedUser) or not self._opens_a_session(scope):
            await self.app(scope, receive, send)
            return
        principal = authorization_context(user)
        key = (principal.get("issuer"), principal.get("subject"), principal.get("client_id"))
        held = sum(1 for owner in self.owners().values() if owner == principal) + self._opening[key]
        if held >= self.limit:
            log.warning(
                "session refused (429): principal %s/%s already holds %d open sessions",
                key[0],
                key[1] or key[2],
                held,
            )
            body = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": TOO_MANY_SESSIONS, "message": too_many_sessions(self.limit)},
            }
            await Response(json.dumps(body), status_code=429, media_type="application/json")(scope, receive, send)
            return
        self._opening[key] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self._opening[key] -= 1
            if not self._opening[key]:
                del self._opening[key]

    def _opens_a_session(self, scope: Scope) -> bool:
        if scope.get("method") != "POST" or scope.get("path", "").rstrip("/") != self.path:
            return False
        headers = Headers(scope=scope)
        version = headers.get("mcp-protocol-version")
        return headers.get("mcp-session-id") is None and (version is None or version in HANDSHAKE_PROTOCOL_VERSIONS)


class SessionOwners:
    """The open sessions' owners, read from the session manager FastMCP serves `path` with.

    Bound once the app exists (`bind`); the manager itself is made anew in each lifespan.
    """

    def __init__(self, path: str):
        self.path = path
        self._streamable: Any = None

    def bind(self, app: Any) -> None:
        endpoint = next(r.endpoint for r in app.routes if getattr(r, "path", None) == self.path)
        self._streamable = getattr(endpoint, "app", endpoint)  # RequireAuthMiddleware wraps it

    def __call__(self) -> Mapping[str, Any]:
        manager = getattr(self._streamable, "session_manager", None)
        return getattr(manager, "_session_owners", {}) if manager is not None else {}
