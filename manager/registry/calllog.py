"""mcp_call_log: one row per tool call, whatever its outcome.

The row answers "what did the agent do and what did it see": arguments (clipped),
status, counts, and the result text the model received (clipped). Error detail
never goes here, only the error's class name; the detail is in the operator log.
mcp_client and model are the columns SQLcl's DBTOOLS$MCP_LOG has (the view
dbtools_mcp_log shows the log in that shape).

An ok row's cited ids are also written one a row to mcp_call_cited, in the same transaction:
"was record X issued to this caller" (calllog_cited.sql) is then a key lookup, not a search of
every call's cited_ids.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from typing import Any

from ..backend.base import Session
from ..identity import Identity

STATUSES = ("ok", "denied", "invalid", "error", "timeout")
_ARGS_LOG_CHARS = 4000


def mcp_client(identity: Identity) -> str | None:
    """The host as SQLcl's DBTOOLS$MCP_LOG names it: its clientInfo name and version ("claude-ai 0.1.0")."""
    parts = [p for p in (identity.client_name, identity.client_version) if p]
    return " ".join(parts) or None


def argument_digest(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass
class CallRecord:
    call_id: str
    called_at: str
    tool_name: str
    status: str
    arguments: dict[str, Any] = field(default_factory=dict)
    handler: str | None = None
    toolbox_row_id: str | None = None
    toolbox_row_version: int | None = None
    transport: str | None = None
    error_class: str | None = None
    rows_returned: int | None = None
    truncated: bool | None = None
    result_tokens: int | None = None
    result_text: str | None = None
    cited_ids: tuple[str, ...] = ()
    duration_ms: float | None = None

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")


_RECORD_FIELDS = tuple(f.name for f in fields(CallRecord))


def write(session: Session, identity: Identity, record: CallRecord, result_log_chars: int) -> None:
    # Field by field, not dataclasses.asdict: that deep-copies the arguments and cited ids,
    # which are only read here, and was a third of the row's cost.
    data = {name: getattr(record, name) for name in _RECORD_FIELDS}
    arguments = data.pop("arguments")
    args_json = json.dumps(arguments, sort_keys=True, default=str)
    text = data.pop("result_text")
    row = {
        **data,
        "tenant_id": identity.tenant,
        "principal": identity.principal,
        "user_id": identity.user,
        "agent_id": identity.agent,
        "thread_id": identity.thread,
        "client_name": identity.client_name,
        "client_version": identity.client_version,
        "mcp_client": mcp_client(identity),
        "model": identity.model,
        "session_id": identity.session,
        "argument_digest": argument_digest(arguments),
        "arguments_json": args_json[:_ARGS_LOG_CHARS],
        "truncated": None if record.truncated is None else int(record.truncated),
        "result_text": None if text is None else text[:result_log_chars],
        "cited_ids": json.dumps(list(record.cited_ids)),
    }
    if record.status != "ok" or not record.cited_ids:
        session.insert("mcp_call_log", row)
        return
    with session.transaction():
        session.insert("mcp_call_log", row)
        session.insert_many("mcp_call_cited", cited_rows(row))


def cited_rows(row: dict[str, Any]) -> list[dict[str, Any]]:
    """One mcp_call_cited row per id an ok call-log row cites, in the call's scope; the id is the
    call's and the cited id's place in cited_ids (as the migration's backfill makes it)."""
    scope = {c: row[c] for c in ("tenant_id", "user_id", "agent_id", "thread_id", "call_id")}
    return [
        {"id": f"{row['call_id']}:{i}", **scope, "cited_id": cited}
        for i, cited in enumerate(json.loads(row["cited_ids"]))
    ]
