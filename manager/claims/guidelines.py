"""Guidelines (policies by key, e.g. context_budget) and the agent persona.

A guideline's versions share a row id (`row_id`; the tenant-wide budget's is
`context_context_budget`). A policy update never edits a version: in one transaction it
retires the open version (valid_until = now) and inserts the next, whose provenance
points at the one it replaced; the unique (tenant, row id, version) index makes a
concurrent second update of the same version fail.
"""

from __future__ import annotations

import json
from typing import Any

from ..backend.base import Row, Session
from ..errors import Conflict, InvalidArgument
from ..identity import Identity
from ..ids import new_id
from .entities import next_version
from .scoping import most_specific_per_key

#: the row id of the tenant-wide context budget, the same in every tenant
BUDGET_ROW_ID = "context_context_budget"
BUDGET_KEY = "context_budget"


def current_guidelines(session: Session, now: str, key: str | None = None) -> dict[str, Row]:
    """Guidelines in force at `now` for the session's caller: the wall scopes the rows, the most specific wins."""
    rows = session.fetch_all("guideline_current", key=key, now=now)
    return most_specific_per_key(rows, "guideline_key")


def current_personas(session: Session, now: str, key: str | None = None) -> dict[str, Row]:
    rows = session.fetch_all("persona_current", key=key, now=now)
    return most_specific_per_key(rows, "persona_key")


def guideline_json(row: Row | None) -> dict[str, Any] | None:
    if row is None or not row.get("content_json"):
        return None
    return json.loads(row["content_json"])


def update_guideline(
    session: Session,
    identity: Identity,
    *,
    row_id: str,
    key: str,
    content: str,
    now: str,
    content_json: Any = None,
    expected_version: int | None = None,
) -> Row:
    """Retire the open version of guideline `row_id` and insert the next one, in one transaction.

    The next version keeps the scope of the one it replaces (tenant-wide for a new row id).
    """
    if not content.strip():
        raise InvalidArgument("content must be a non-empty string", field="content")
    with session.transaction():
        latest = session.fetch_one("guideline_latest_by_row", row_id=row_id)
        have = latest["version"] if latest else 0
        if expected_version is not None and expected_version != have:
            raise Conflict(
                f"guideline {row_id} is at version {have}, not {expected_version}; nothing was written",
                hint="Read the guideline again and update its current version.",
            )
        if latest is not None and latest["guideline_key"] != key:
            raise InvalidArgument(
                f"row id {row_id} holds guideline {latest['guideline_key']!r}, not {key!r}", field="row_id"
            )
        if latest is not None:
            session.execute("guideline_close_version", id=latest["id"], now=now)
        scope = {c: latest[c] if latest else None for c in ("user_id", "agent_id", "thread_id")}
        row = {
            "id": new_id("gdl"),
            "row_id": row_id,
            "tenant_id": identity.tenant,
            **scope,
            "guideline_key": key,
            "content": content,
            "content_json": json.dumps(content_json, sort_keys=True) if content_json is not None else None,
            **next_version("guideline_memory", latest, identity, now),
        }
        session.insert("guideline_memory", row)
    return row
