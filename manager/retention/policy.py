"""Retention policy: per memory type, a number of days or "keep".

The defaults ship in config/retention.json; a tenant's own policy is its tenant-wide guideline
`retention` (row id `retention_policy`), whose content_json names any of the types and overrides
the default for those. A policy update is a guideline update like the budget's: the open version
is retired and the next inserted (manager/claims/guidelines.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..backend.base import Backend
from ..claims import guidelines
from ..clock import now_iso
from ..errors import ConfigError, InvalidArgument
from ..identity import Identity
from .registry import memory_types

__all__ = ["KEEP", "RetentionPolicy", "load_policy", "parse_rule", "set_policy"]

KEEP = "keep"
POLICY_KEY = "retention"
POLICY_ROW_ID = "retention_policy"


@dataclass(frozen=True)
class RetentionPolicy:
    #: memory type -> days (int, 0 = everything written before now) or None (keep)
    days: dict[str, int | None]
    #: memory type -> "default" or "tenant"
    source: dict[str, str]
    #: the tenant guideline's version, or None
    version: int | None = None


def parse_rule(memory_type: str, value: Any) -> int | None:
    """Days (a non-negative integer) or None for "keep"; InvalidArgument otherwise."""
    if memory_type not in memory_types():
        raise InvalidArgument(
            f"unknown memory type {memory_type!r}; one of: {', '.join(memory_types())}", field="memory_type"
        )
    if value == KEEP or value is None:
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArgument(f'{memory_type}: days must be a whole number >= 0 or "keep"', field=memory_type)
    return value


def defaults() -> dict[str, int | None]:
    try:
        data = json.loads(resources.files("memgate.config").joinpath("retention.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError("config/retention.json is missing or not JSON") from exc
    return {t: parse_rule(t, data.get(t, KEEP)) for t in memory_types()}


def load_policy(backend: Backend, tenant: str) -> RetentionPolicy:
    """The tenant's effective policy: its guideline's rules over the shipped defaults."""
    days = defaults()
    source = dict.fromkeys(days, "default")
    with backend.retention_store(tenant) as store:
        row = store.policy()
    own = json.loads(row["content_json"] or "{}") if row else {}
    for memory_type, value in own.items():
        if memory_type in days:
            days[memory_type] = parse_rule(memory_type, value)
            source[memory_type] = "tenant"
    return RetentionPolicy(days, source, row["version"] if row else None)


def set_policy(backend: Backend, tenant: str, rules: dict[str, Any], principal: str) -> dict[str, Any]:
    """Merge `rules` into the tenant's retention guideline (a new version); returns the stored rules."""
    checked = {t: parse_rule(t, v) for t, v in rules.items()}
    identity = Identity(tenant=tenant, principal=principal)
    with backend.retention_store(tenant) as store:
        row = store.policy()
    merged = json.loads(row["content_json"] or "{}") if row else {}
    merged.update({t: KEEP if d is None else d for t, d in checked.items()})
    with backend.session(identity) as s:
        guidelines.update_guideline(
            s,
            identity,
            row_id=POLICY_ROW_ID,
            key=POLICY_KEY,
            content="How long this tenant keeps each memory type (days, or keep); `memgate expire` applies it.",
            now=now_iso(),
            content_json=merged,
        )
    return merged
