"""Timestamps as the schema stores them: UTC ISO-8601 text with milliseconds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from .errors import InvalidArgument


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


def as_of_iso(text: object, *, now: str, field: str = "as_of") -> str:
    """An as-of time a caller names, as the schema stores timestamps: ISO-8601, a date (midnight
    UTC) or a date and time with Z or an offset (none: UTC); never after `now`."""
    hint = "Give an ISO-8601 time such as 2025-03-01 or 2025-03-01T09:30:00Z."
    if not isinstance(text, str) or not 8 <= len(text.strip()) <= 40:
        raise InvalidArgument(f"{field} must be an ISO-8601 date or time", field=field, hint=hint)
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InvalidArgument(
            f"{field} {text.strip()[:40]!r} is not an ISO-8601 date or time", field=field, hint=hint
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    at = to_iso(moment)
    if at > now:
        raise InvalidArgument(
            f"{field} {at} is in the future; memgate answers as of a past moment",
            field=field,
            hint="Leave as_of out to read what holds now.",
        )
    return at
