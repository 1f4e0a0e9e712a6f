"""The `clarify` handler: ask the user one question by MCP elicitation, in either protocol era.

How the question reaches the user depends on the client, known before asking from the
capabilities it declared (the handshake's in the 2025-11-25 era, each request's in the
2026-07-28 era):
- 2026-07-28 with form elicitation: the first leg returns an InputRequiredResult; the
  client asks the user and repeats the call with the answer in `input_responses` (the
  request state that binds the two legs is sealed with the key every server process on
  the database shares, so any process can take the second leg);
- 2025-11-25 with elicitation: `ctx.elicit` asks within the call;
- no elicitation: the manager tells the model to ask the user in its reply.
Whatever happens (answer, decline, cancel, fallback) the manager records it in the thread.
clarify is not a tool round: it brings the user's words, not memory.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import mcp_types
from fastmcp.server.dependencies import get_context
from fastmcp.server.elicitation import AcceptedElicitation, DeclinedElicitation
from fastmcp.tools.base import InputRequiredToolResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from .spec import HandlerSpec, StrictArgs

_KEY = "clarify"


class ClarifyArgs(StrictArgs):
    question: str = Field(min_length=1, max_length=1000)
    options: list[str] | None = Field(None, min_length=2, max_length=10)


def elicitation_mode(ctx: Any) -> str | None:
    """'modern' (InputRequiredResult), 'legacy' (ctx.elicit), or None: the client cannot ask the user."""
    try:
        caps = ctx.session.client_capabilities
    except RuntimeError:
        return None
    e = caps.elicitation if caps else None
    if e is None or (e.form is None and e.url is not None):  # {} means form (spec back-compat); url-only: no form
        return None
    return "modern" if ctx.session.protocol_version in MODERN_PROTOCOL_VERSIONS else "legacy"


async def ask_user(arguments: dict[str, Any]) -> dict[str, Any] | InputRequiredToolResult:
    question, options = arguments["question"], arguments.get("options")
    try:
        ctx = get_context()
    except RuntimeError:
        return {"action": "fallback"}
    mode = elicitation_mode(ctx)
    if mode == "modern":
        state = _state(question, options)
        response = (ctx.input_responses or {}).get(_KEY)
        if response is None or ctx.request_state != state:
            return InputRequiredToolResult(
                mcp_types.InputRequiredResult(
                    input_requests={
                        _KEY: mcp_types.ElicitRequest(
                            params=mcp_types.ElicitRequestFormParams(
                                message=question, requested_schema=_schema(options)
                            )
                        )
                    },
                    request_state=state,
                )
            )
        content = response.content or {}
        return {"action": response.action, "answer": content.get("answer") if response.action == "accept" else None}
    if mode == "legacy":
        result = await ctx.elicit(question, response_type=list(options) if options else str)
        if isinstance(result, AcceptedElicitation):
            return {"action": "accept", "answer": result.data}
        return {"action": "decline" if isinstance(result, DeclinedElicitation) else "cancel"}
    return {"action": "fallback"}


def _schema(options: list[str] | None) -> dict[str, Any]:
    answer: dict[str, Any] = {"type": "string", "title": "Answer"}
    if options:
        answer["enum"] = list(options)
    return {"type": "object", "properties": {"answer": answer}, "required": ["answer"]}


def _state(question: str, options: list[str] | None) -> str:
    """Binds the answer to the question it answers (the server seals the state on the wire)."""
    return "clarify:" + hashlib.sha256(json.dumps([question, options]).encode()).hexdigest()[:32]


def clarify_hints(policy: dict[str, Any], schema: dict[str, Any]) -> dict[str, bool]:
    """clarify stores the user's answer as a thread event: a write, though it destroys nothing."""
    return {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}


SPEC = HandlerSpec("clarify", "clarify", ClarifyArgs, interact=ask_user, charged=False, hints=clarify_hints)
