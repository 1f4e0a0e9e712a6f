"""Guidelines (policies by key, e.g. context_budget) and the agent persona."""

from __future__ import annotations

import json
from typing import Any

from ..backend.base import Row, Session
from .scoping import most_specific_per_key


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
