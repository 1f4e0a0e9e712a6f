"""`memgate expire`: apply a tenant's retention policy, in bounded batches.

For every table of the registry and each of its retention rules whose memory type has a number
of days, the rows written before now - days are deleted a batch at a time (one transaction per
batch), rows of every scope alike; then the rules that follow an owner (a document's chunks)
remove the rows whose owner went. A copy keeps no longer than what it copies: a manifest (the
window's text) and a summary (its turns) expire by the shortest rule among their own and their
sources' (`Retention.carries`), measured from their own writing; a value another row computed from a
deleted row beside its own (`TableSpec.carried_into`: a turn's embedding, made with the words of the turn
it replies to) is cleared in the deleting batch's transaction, to be computed again (`memgate reembed`:
expiry has no embedder). A deleted row has left context assembly, search and replay
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
from .registry import REGISTRY, CarriedInto, Retention, spec

__all__ = ["ExpiryReport", "effective_days", "expire"]

DEFAULT_BATCH = 500


@dataclass
class ExpiryReport:
    tenant: str
    dry_run: bool
    policy: RetentionPolicy
    #: "table (memory type)" -> rows expired
    counts: dict[str, int] = field(default_factory=dict)
    #: "table (what recomputes it)" -> surviving rows whose derived value was cleared
    cleared: dict[str, int] = field(default_factory=dict)
    #: the same labels -> the (user, agent) scopes those rows belong to (`memgate expire --verbose` names them)
    cleared_scopes: dict[str, list[tuple[str | None, str | None]]] = field(default_factory=dict)
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
    steps: list[tuple[str, TableShape, RowFilter, tuple[CarriedInto, ...]]] = []
    follow: list[tuple[str, TableShape, RowFilter, tuple[CarriedInto, ...]]] = []
    for s in REGISTRY:
        shape = s.shape()
        for rule in s.retention:
            days = effective_days(report.policy, rule)
            if days is None:
                continue
            label = s.table if rule.memory_type == s.table else f"{s.table} ({rule.memory_type})"
            if rule.orphans_of is not None:
                follow.append((label, shape, RowFilter(orphaned=rule.orphans_of, equals=rule.equals), s.carried_into))
                continue
            cutoff = to_iso(parse_iso(now) - timedelta(days=days))
            where = RowFilter(older_than=(rule.time_column, cutoff), equals=rule.equals, not_equals=rule.not_equals)
            steps.append((label, shape, where, s.carried_into))
    # what each CarriedInto (by statement) cleared, less what expired afterwards: the survivors
    cleared: dict[str, tuple[CarriedInto, dict[str, tuple[str | None, str | None]]]] = {}
    for label, shape, where, carried in steps + follow:
        for rows in store.batches(shape, where, batch):
            keys = {str(r["row_key"]) for r in rows}
            with store.transaction():
                derived = [(c, store.named(c.statement, sorted(keys))) for c in carried]
                store.delete(shape, rows)
                for c, targets in derived:  # a row of the batch itself (a recall row has its turn's id) went
                    targets = [t for t in targets if str(t["row_key"]) not in keys]
                    store.update(spec(c.table).shape(), targets, c.clear)
                    cleared.setdefault(c.statement, (c, {}))[1].update(
                        (str(t["row_key"]), (t["user_id"], t["agent_id"])) for t in targets
                    )
            for _, held in cleared.values():  # cleared, then expired itself: not a survivor
                for key in keys & held.keys():
                    del held[key]
            report.counts[label] = report.counts.get(label, 0) + len(rows)
            say(f"{report.tenant} {label}: {report.counts[label]} expired")
    for c, held in cleared.values():
        if held:
            report.cleared[f"{c.table} ({c.remedy})"] = len(held)
            report.cleared_scopes[f"{c.table} ({c.remedy})"] = sorted(set(held.values()), key=str)
            say(f"{report.tenant} {c.table}: {len(held)} cleared, to be {c.remedy}")
