"""`memgate expire`: apply a tenant's retention policy, in bounded batches.

For every table of the registry and each of its retention rules whose memory type has a number
of days, the rows written before now - days are deleted a batch at a time (one transaction per
batch), rows of every scope alike; then the rules that follow an owner (a document's chunks)
remove the rows whose owner went. A copy keeps no longer than what it copies: a manifest (the
window's text) and a summary (its turns) expire by the shortest rule among their own and their
sources' (`Retention.carries`), measured from their own writing. A deleted row has left context assembly, search and replay
at once; the call log's rows go whole (retention is about age, not about a person: erasure is
`memgate forget`). After the rows, the backend purges what it keeps beside them, as for erasure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from ..backend.base import Backend
from ..backend.retention_store import RetentionStore, RowFilter, TableShape
from ..clock import now_iso, parse_iso, to_iso
from .policy import RetentionPolicy, load_policy
from .registry import REGISTRY, Retention

__all__ = ["ExpiryReport", "effective_days", "expire"]

DEFAULT_BATCH = 500


@dataclass
class ExpiryReport:
    tenant: str
    dry_run: bool
    policy: RetentionPolicy
    #: "table (memory type)" -> rows expired
    counts: dict[str, int] = field(default_factory=dict)
    purge: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def expire(
    backend: Backend,
    tenant: str,
    *,
    dry_run: bool = False,
    batch: int = DEFAULT_BATCH,
    compact: bool = False,
    now: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> ExpiryReport:
    policy = load_policy(backend, tenant)
    report = ExpiryReport(tenant, dry_run, policy)
    say = progress or (lambda line: None)
    with backend.retention_store(tenant) as store:
        if dry_run:
            with store.rolled_back():
                _run(store, report, batch, now or now_iso(), say)
            return report
        _run(store, report, batch, now or now_iso(), say)
        if report.total:
            report.purge = store.finish(compact)
    return report


def effective_days(policy: RetentionPolicy, rule: Retention) -> int | None:
    """The rule's days, or fewer when a type it carries keeps its rows for less (None: keep)."""
    kept = [policy.days.get(t) for t in (rule.memory_type, *rule.carries)]
    days = [d for d in kept if d is not None]
    return min(days) if days else None


def _run(store: RetentionStore, report: ExpiryReport, batch: int, now: str, say: Callable[[str], None]) -> None:
    steps: list[tuple[str, TableShape, RowFilter]] = []
    follow: list[tuple[str, TableShape, RowFilter]] = []
    for spec in REGISTRY:
        shape = TableShape(spec.table, spec.key, spec.through, spec.scope_columns)
        for rule in spec.retention:
            days = effective_days(report.policy, rule)
            if days is None:
                continue
            label = spec.table if rule.memory_type == spec.table else f"{spec.table} ({rule.memory_type})"
            if rule.orphans_of is not None:
                follow.append((label, shape, RowFilter(orphaned=rule.orphans_of, equals=rule.equals)))
                continue
            cutoff = to_iso(parse_iso(now) - timedelta(days=days))
            where = RowFilter(older_than=(rule.time_column, cutoff), equals=rule.equals, not_equals=rule.not_equals)
            steps.append((label, shape, where))
    for label, shape, where in steps + follow:
        for rows in store.batches(shape, where, batch):
            with store.transaction():
                store.delete(shape, rows)
            report.counts[label] = report.counts.get(label, 0) + len(rows)
            say(f"{report.tenant} {label}: {report.counts[label]} expired")
