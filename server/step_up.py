"""Step-up authorization: a tools/call of a row whose scopes the token lacks is a 403 challenge.

The MCP authorization spec's insufficient-scope path: before the call reaches the MCP
session, answer HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
scope="..."` naming the scopes the call needs (the verifier's required scopes and the
row's), and the metadata URL, so the host can ask the user to grant them and retry.
Such rows are also left out of the caller's tool list (toolbox/provider.py). The refusal
writes the call's one `denied` log row, as any refused call does.

Runs after the bearer backend (the request's user is the verified token) and the body
limit; it reads the JSON-RPC body of POSTs to /mcp and replays it unchanged.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memgate.manager import CallRecord, Identity, MemgateError, ToolRow, now_iso
from memgate.toolbox import missing_scopes, rows_read

from .auth import MCP_PATH, MemgateAuthProvider, identity_from_access_token
from .auth_responses import AuthResponses
from .verifiers import VerifiedToken

log = logging.getLogger("memgate.server.auth")

#: the one sentence the caller (and the call log) gets
STEP_UP_SENTENCE = "This tool needs a scope your access token does not carry; authorize it and retry."


class StepUpChallenge:
    def __init__(self, app: ASGIApp, *, provider: MemgateAuthProvider):
        self.app = app
        self.provider = provider
        self.responses = AuthResponses(
            challenge_scopes=list(provider.settings.required_scopes),
            resource_metadata_url=provider.metadata_url(),
            retry_after_s=provider.settings.retry_after_s,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user") if scope["type"] == "http" else None
        token = getattr(user, "access_token", None)
        if token is None or scope.get("method") != "POST" or scope.get("path", "").rstrip("/") != MCP_PATH:
            await self.app(scope, receive, send)
            return
        body, replay = await _read_body(receive)
        call = _tool_call(body)
        if call is None or self.provider.manager is None:
            await self.app(scope, replay, send)
            return
        needed, read = await self._needed_scopes(token, *call)
        if needed:
            await self.responses.insufficient_scope(STEP_UP_SENTENCE, needed)(scope, replay, send)
            return
        if read is None:
            await self.app(scope, replay, send)
            return
        # The rows just read are this request's: the provider takes them instead of reading again
        # (toolbox/request_rows.py); the dispatcher still re-reads the row when the call runs.
        with rows_read(read[0], call[0], read[1]):
            await self.app(scope, replay, send)

    async def _needed_scopes(
        self, token: Any, name: str, arguments: Any
    ) -> tuple[list[str] | None, tuple[Identity, list[dict[str, Any]]] | None]:
        """The scopes to ask for when the token lacks some the row `name` requires, else None; and the
        (identity, active rows) read for it, None when the read failed."""
        manager = self.provider.manager
        assert manager is not None
        try:
            identity = identity_from_access_token(token, self.provider.settings)
            rows = await anyio.to_thread.run_sync(lambda: manager.active_tools(identity, name))
            row = ToolRow.from_row(rows[0]) if rows else None
        except MemgateError:
            return None, None  # the MCP layer refuses and logs this call as it would any other
        if row is None or not (missing := missing_scopes(row.access_policy, identity)):
            return None, (identity, rows)
        verifier = token.verifier if isinstance(token, VerifiedToken) else "jwt"
        needed = list(
            dict.fromkeys([*self.provider.settings.scopes_for(verifier), *row.access_policy["required_scopes"]])
        )
        call_id = str(uuid.uuid4())
        log.warning("call %s to %r refused with a step-up challenge: missing scopes %s", call_id, name, missing)
        record = CallRecord(
            call_id=call_id,
            called_at=now_iso(),
            tool_name=name,
            status="denied",
            arguments=arguments if isinstance(arguments, dict) else {},
            handler=row.tool_handler,
            toolbox_row_id=row.id,
            toolbox_row_version=row.version,
            transport="streamable-http",
            error_class="InsufficientScope",
            result_text=STEP_UP_SENTENCE,
            duration_ms=0.0,
        )
        try:
            await anyio.to_thread.run_sync(lambda: manager.log_call(identity, record))
        except Exception:  # the refusal stands; a lost log row must be loud
            log.critical("could not write mcp_call_log row for call %s", call_id, exc_info=True)
        return needed, None


def _tool_call(body: bytes) -> tuple[str, Any] | None:
    """(tool name, arguments) when `body` is one JSON-RPC tools/call request."""
    try:
        message = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None
    params = message.get("params")
    if not isinstance(params, dict):
        return None
    name = params.get("name")
    return (name, params.get("arguments")) if isinstance(name, str) and name else None


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body, and a `receive` that hands the same messages on."""
    messages: list[Message] = []
    chunks: list[bytes] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break

    async def replay() -> Message:
        return messages.pop(0) if messages else await receive()

    return b"".join(chunks), replay
