"""When a turn was said: read from what an import or a host gives, shown as a model reads it.

A turn carries the time it was said as its valid_from: the time an import or the host gave, else now.
Windows and recall text show the day as people write it ("8 May 2023"), so "when did X happen" can be
answered from the window; the stored value stays ISO-8601 UTC like every timestamp of the schema.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from ..clock import parse_iso, to_iso
from ..errors import InvalidArgument

__all__ = ["day", "said_at"]

_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
#: LoCoMo's session times: "1:56 pm on 8 May, 2023"
_SPOKEN = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.IGNORECASE
)
#: "8 May 2023", "8 May, 2023"
_DAY_FIRST = re.compile(r"^\s*(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$")


def day(iso: str) -> str:
    """The day of an ISO-8601 timestamp as a window shows it: "8 May 2023"."""
    moment = parse_iso(iso)
    return f"{moment.day} {_MONTHS[moment.month - 1]} {moment.year}"


def said_at(value: object, *, field: str = "time") -> str:
    """An ISO-8601 UTC timestamp from what an import or a host gives: ISO-8601 text (UTC when it names
    no zone), seconds since the epoch (a ChatGPT export's create_time), or a spoken form such as
    LoCoMo's "1:56 pm on 8 May, 2023" or "8 May 2023". InvalidArgument naming `field` otherwise."""
    if isinstance(value, bool):
        raise InvalidArgument(f"{field} must be a time, got {value!r}", field=field)
    if isinstance(value, (int, float)):
        return to_iso(datetime.fromtimestamp(float(value), UTC))
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{field} must be a time, got {value!r}", field=field)
    text = value.strip()
    spoken = _SPOKEN.match(text)
    if spoken:
        hour, minute, half, d, month, year = spoken.groups()
        hour24 = int(hour) % 12 + (12 if half.lower() == "p" else 0)
        return to_iso(datetime(int(year), _month(month, field), int(d), hour24, int(minute), tzinfo=UTC))
    day_first = _DAY_FIRST.match(text)
    if day_first:
        d, month, year = day_first.groups()
        return to_iso(datetime(int(year), _month(month, field), int(d), tzinfo=UTC))
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidArgument(
            f"{field} {text[:60]!r} is not a time: use ISO-8601 (2023-05-08T13:56:00Z), seconds since the epoch, "
            "or a form like '1:56 pm on 8 May, 2023'",
            field=field,
        ) from None
    return to_iso(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


def _month(name: str, field: str) -> int:
    for n, month in enumerate(_MONTHS, start=1):
        if month.lower().startswith(name.lower()[:3]) and len(name) >= 3:
            return n
    raise InvalidArgument(f"{field} names no month: {name!r}", field=field)
