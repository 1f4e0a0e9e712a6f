"""The `remember` handler: propose a durable memory; the Manager's promotion gate decides. It writes.

The answer's first line is the decision (promoted | pending | duplicate | refused) with the record
or candidate id and the rule. The row's schema gives kind and scope as enums with a one-line
description of each value; the scope enum is narrowed to the scopes the row's
access_policy.remember allows (manager/promotion/gate.py), so the model is offered only those.

When the tenant's assessor is `sampling`, the connected host's own model answers the gate's
questions over MCP sampling (`sampling/createMessage`): only in the 2025-11-25 era, from a client
that declared the capability. The 2026-07-28 era deprecates sampling (SEP-2577) and the server
sends no server-initiated request there, so the gate uses the rules assessor and says so.

A fact that contradicts the current value is pending; in the 2025-11-25 era, from a client that
declared elicitation, the gate first asks the user once ("Replace 0.78 with 0.81?"): "replace"
writes it as the claim's next version in the caller's scope (the correction path), anything else
leaves it pending.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import anyio
import mcp_types
from fastmcp.server.dependencies import get_context
from fastmcp.server.elicitation import AcceptedElicitation
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from .clarify import elicitation_mode
from .spec import HandlerSpec, StrictArgs

#: the most tokens the host's model may spend on one assessment (a JSON object of three numbers)
_SAMPLING_TOKENS = 200
#: the user's two answers to "replace the current value?"
_REPLACE, _KEEP = "replace", "keep"


#: one line per scope, for the scope property's description
SCOPE_LINES = {
    "user": "user: this user",
    "agent": "agent: all its users",
    "thread": "thread: this conversation",
    "tenant": "tenant: everyone",
}
#: the scopes a row allows when its access_policy.remember does not list them (gate.DEFAULT_ROW_SCOPES)
DEFAULT_SCOPES = ("user", "agent", "thread")


def shape_remember_schema(schema: dict[str, Any], policy: dict[str, Any]) -> dict[str, Any]:
    """Offer only the scopes the row allows (tenant-wide only when the operator lists it), each described."""
    scope = schema.get("properties", {}).get("scope")
    if not isinstance(scope, dict) or "enum" not in scope:
        return schema
    settings = policy.get("remember") or {}
    allowed = [s for s in scope["enum"] if s in (settings.get("scopes") or DEFAULT_SCOPES)]
    if not allowed:
        return schema
    default = settings.get("default_scope") or "user"
    shaped = copy.deepcopy(schema)
    shaped["properties"]["scope"]["enum"] = allowed
    shaped["properties"]["scope"]["description"] = "; ".join(
        SCOPE_LINES.get(s, s) + (" (default)" if s == default and s != "user" else "") for s in allowed
    )
    return shaped


class RememberArgs(StrictArgs):
    content: str = Field(min_length=1, max_length=100_000)
    kind: str = Field("note", max_length=100)
    subject: str | None = Field(None, min_length=1, max_length=500)
    predicate: str | None = Field(None, min_length=1, max_length=250)
    evidence: list[str] = Field(default_factory=list, max_length=100)
    scope: str | None = Field(None, max_length=100)


def remember_hints(policy: dict[str, Any], schema: dict[str, Any]) -> dict[str, bool]:
    """It writes (a candidate, maybe a memory), so not read-only; it never removes or overwrites
    (a conflicting fact waits, pending); the same proposal twice is a duplicate, not a second memory."""
    return {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}


def can_sample(ctx: Any) -> bool:
    """Whether this request may ask the client's model: 2025-11-25 era, sampling declared."""
    try:
        caps = ctx.session.client_capabilities
        era = ctx.session.protocol_version
    except (RuntimeError, AttributeError):
        return False
    return caps is not None and caps.sampling is not None and era not in MODERN_PROTOCOL_VERSIONS


async def offer_client(arguments: dict[str, Any]) -> dict[str, Any]:
    """What the client can do for the gate: a sampler (the host's model) and a confirm (ask the user
    once whether a conflicting fact replaces the current value), each only where the era allows."""
    try:
        ctx = get_context()
    except RuntimeError:
        return {}
    offered: dict[str, Any] = {}
    if can_sample(ctx):
        offered["sampler"] = _sampler(ctx)
    if elicitation_mode(ctx) == "legacy":
        offered["confirm"] = _confirm(ctx)
    return offered


def _confirm(ctx: Any):
    async def ask(question: str) -> bool | None:
        result = await ctx.elicit(question, response_type=[_REPLACE, _KEEP])
        return result.data == _REPLACE if isinstance(result, AcceptedElicitation) else None

    def confirm(question: str) -> bool | None:  # called from the gate's worker thread
        return anyio.from_thread.run(ask, question)

    return confirm


def _sampler(ctx: Any):
    session = ctx.session

    async def ask(system: str, user: str) -> str:
        with warnings.catch_warnings():  # deprecated only as of 2026-07-28, an era this path never takes
            warnings.simplefilter("ignore", category=MCPDeprecationWarning)
            result = await session.create_message(
                [mcp_types.SamplingMessage(role="user", content=mcp_types.TextContent(type="text", text=user))],
                max_tokens=_SAMPLING_TOKENS,
                system_prompt=system,
                temperature=0.0,
            )
        content = result.content
        return content.text if isinstance(content, mcp_types.TextContent) else ""

    def sampler(system: str, user: str) -> str:  # called from the gate's worker thread
        return anyio.from_thread.run(ask, system, user)

    return sampler


_DECISION = {
    "type": "object",
    "properties": {
        "decision": {"type": "string", "enum": ["promoted", "pending", "duplicate", "refused"]},
        "rule": {"type": "string"},
        "record_id": {"type": ["string", "null"]},
        "candidate_id": {"type": ["string", "null"]},
    },
    "required": ["decision", "rule"],
}

SPEC = HandlerSpec(
    "remember",
    "remember",
    RememberArgs,
    shape_schema=shape_remember_schema,
    takes_policy=True,
    hints=remember_hints,
    interact=offer_client,
    output_schema=_DECISION,
)
