"""The `clarify` handler: ask the user one question by MCP elicitation, in either protocol era.

How the question reaches the user depends on the client, known before asking from the
capabilities it declared (the handshake's in the 2025-11-25 era, each request's in the
2026-07-28 era):
- 2026-07-28 with form elicitation: the first leg returns an InputRequiredResult; the
  client asks the user and repeats the call with the answer in `input_responses` (the
  request state that binds the two legs is sealed with the key every server process on
  the database shares, so any process can take the second leg);
- 2025-11-25 with elicitation: the session's elicit asks within the call, with the same
  requested schema, under the dispatcher's deadline (caps.elicit_timeout_s; past it the
  call answers `timeout` and the model is told to ask in its reply);
- no elicitation: the manager tells the model to ask the user in its reply.
Whatever happens (answer, decline, cancel, timeout, fallback) the manager records it in the
thread, and judges an answer the same way in both eras (an answer that does not fit the
question is one "Invalid arguments for 'answer'" sentence and an `invalid` log row).
clarify is not a tool round: it brings the user's words, not memory.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import mcp_types
from fastmcp.server.dependencies import get_context
from fastmcp.tools.base import InputRequiredToolResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from .spec import HandlerSpec, StrictArgs

_KEY = "clarify"
#: the requested schema's one field, in both eras
ANSWER_FIELD = "answer"


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
        return _outcome(response.action, response.content)
    if mode == "legacy":
        # The session's own elicit, not ctx.elicit: the same requested schema as the modern era
        # (its field is `answer`), and the answer is judged by the manager as in that era, so a
        # reply that does not fit is the same one sentence, not a client-side validation error.
        # The dispatcher bounds this wait by caps.elicit_timeout_s.
        result = await ctx.session.elicit(
            message=question, requested_schema=_schema(options), related_request_id=ctx.request_id
        )
        return _outcome(result.action, result.content)
    return {"action": "fallback"}


def _outcome(action: str, content: dict[str, Any] | None) -> dict[str, Any]:
    """What the client answered, as the manager's clarify takes it (it judges the answer)."""
    if action == "accept":
        return {"action": action, "answer": (content or {}).get(ANSWER_FIELD)}
    return {"action": action}


def _schema(options: list[str] | None) -> dict[str, Any]:
    """The form the user fills in, in both eras: one text field `answer`, one of the options if given."""
    answer: dict[str, Any] = {"type": "string", "title": "Answer"}
    if options:
        answer["enum"] = list(options)
    return {"type": "object", "properties": {ANSWER_FIELD: answer}, "required": [ANSWER_FIELD]}


def _state(question: str, options: list[str] | None) -> str:
    """Binds the answer to the question it answers (the server seals the state on the wire)."""
    return "clarify:" + hashlib.sha256(json.dumps([question, options]).encode()).hexdigest()[:32]


def clarify_hints(policy: dict[str, Any], schema: dict[str, Any]) -> dict[str, bool]:
    """clarify stores the user's answer as a thread event: a write, though it destroys nothing."""
    return {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}


SPEC = HandlerSpec("clarify", "clarify", ClarifyArgs, interact=ask_user, charged=False, hints=clarify_hints)
