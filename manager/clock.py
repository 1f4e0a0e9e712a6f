"""Timestamps as the schema stores them: UTC ISO-8601 text with milliseconds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def to_iso(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_iso() -> str:
    """One evaluation timestamp; a call takes it once and passes it to every statement."""
    return to_iso(datetime.now(UTC))


def days_ago_iso(days: float) -> str:
    return to_iso(datetime.now(UTC) - timedelta(days=days))


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
