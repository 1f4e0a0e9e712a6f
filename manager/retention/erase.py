"""`memgate forget`: erase one user's, agent's or thread's content everywhere memgate copied it.

The subject's rows are those whose own scope column names it (user_id = 'jane'), in every table
of the registry, whatever their other scope columns; shared rows (NULL at that level) are the
tenant's and stay. Each table is erased a batch at a time, one transaction per batch, and each
batch records the keys it removed (erasure_row, no content) and the running counts in the
erasure record in the same transaction. So a run that is killed loses nothing that should stay
and the next run for the same subject finds the record, still `running`, and finishes it: the
subject's remaining rows are found again by scope, and the rows that pointed at rows already
erased (links, other scopes' manifests) by the recorded keys.

The call log keeps its rows (who called which tool when, with what status) with their content
replaced by a marker. After the rows: the backend purges what it keeps beside them
(RetentionStore.finish: on SQLite the tenant's FTS5 segments, freed pages, the WAL).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..backend.base import Backend
from ..backend.retention_store import RetentionStore, RowFilter
from ..clock import now_iso
from ..errors import InvalidArgument
from ..ids import new_id
from . import manifests
from .registry import REGISTRY, TableSpec

__all__ = ["SUBJECT_COLUMNS", "ErasureReport", "erase"]

#: the subject kinds and the scope column each names
SUBJECT_COLUMNS = {"user": "user_id", "agent": "agent_id", "thread": "thread_id"}
DEFAULT_BATCH = 500


@dataclass
class ErasureReport:
    erasure_id: str
    tenant: str
    kind: str
    subject: str
    dry_run: bool
    resumed: bool
    #: table -> rows erased (deleted, or for the call log: content replaced)
    counts: dict[str, int] = field(default_factory=dict)
    purge: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def erase(
    backend: Backend,
    tenant: str,
    kind: str,
    subject: str,
    *,
    requested_by: str,
    dry_run: bool = False,
    batch: int = DEFAULT_BATCH,
    compact: bool = True,
    progress: Callable[[str], None] | None = None,
    record_empty: bool = True,
) -> ErasureReport:
    """Erase `subject` (a user, agent or thread id) of `tenant`; with `dry_run`, count only (exactly:
    the whole erasure runs in one transaction that is rolled back). Without `record_empty`, a subject
    with no rows (a mistyped id, most often) writes no erasure record: the report's erasure_id is ""."""
    if kind not in SUBJECT_COLUMNS:
        raise InvalidArgument(f"subject kind must be one of {sorted(SUBJECT_COLUMNS)}", field="kind")
    if not subject:
        raise InvalidArgument("name the subject to erase", field=kind)
    say = progress or (lambda line: None)
    with backend.retention_store(tenant) as store:
        if dry_run:
            report = ErasureReport("(dry run)", tenant, kind, subject, True, False)
            with store.rolled_back():
                _run(store, report, requested_by, batch, say)
            return report
        running = store.running_erasure(kind, subject)
        if running is None and not record_empty and not _has_rows(store, kind, subject):
            return ErasureReport("", tenant, kind, subject, False, False)
        report = ErasureReport(
            running["erasure_id"] if running else new_id("era"), tenant, kind, subject, False, running is not None
        )
        if running:
            report.counts = {k: int(v) for k, v in json.loads(running["counts_json"] or "{}").items()}
            say(f"resuming erasure {report.erasure_id} started {running['started_at']}")
        _run(store, report, requested_by, batch, say)
        if report.total:  # nothing erased (now or by the run this one resumed): nothing to purge
            report.purge = store.finish(compact)
        return report


def _run(
    store: RetentionStore, report: ErasureReport, requested_by: str, batch: int, say: Callable[[str], None]
) -> None:
    if not report.resumed:
        with store.transaction():
            store.start_erasure(report.erasure_id, report.kind, report.subject, requested_by, now_iso())
    for spec in REGISTRY:
        shape = spec.shape()
        filters = []
        column = spec.subject_column(report.kind, SUBJECT_COLUMNS[report.kind])
        if spec.scoped and column is not None:
            filters.append(RowFilter(subject=(column, report.subject), **_unscrubbed(spec)))
        if spec.references:
            filters.append(RowFilter(erased_refs=spec.references, **_unscrubbed(spec)))
        for where in filters:
            for rows in store.batches(shape, where, batch, erasure=report.erasure_id):
                with store.transaction():
                    if spec.action == "scrub":
                        store.update(shape, rows, spec.scrub)
                    else:
                        store.delete(shape, rows)
                        store.tombstone(report.erasure_id, spec.table, [r["row_key"] for r in rows])
                    report.counts[spec.table] = report.counts.get(spec.table, 0) + len(rows)
                    store.record_counts(report.erasure_id, report.counts)
                verb = "would be erased" if report.dry_run else "erased"
                say(f"{spec.table}: {report.counts[spec.table]} {verb}")
        if spec.table == "conversation_memory":
            n = manifests.scrub_naming_erased(store, report.erasure_id, batch)
            if n:
                with store.transaction():
                    report.counts["context_manifest (other scopes)"] = (
                        report.counts.get("context_manifest (other scopes)", 0) + n
                    )
                    store.record_counts(report.erasure_id, report.counts)
    with store.transaction():
        store.finish_erasure(report.erasure_id, now_iso())


def _has_rows(store: RetentionStore, kind: str, subject: str) -> bool:
    """Whether any table holds a row of the subject's own scope (what an erasure would start from)."""
    for spec in REGISTRY:
        column = spec.subject_column(kind, SUBJECT_COLUMNS[kind])
        if spec.scoped and column is not None:
            if store.select(spec.shape(), RowFilter(subject=(column, subject), **_unscrubbed(spec)), 1):
                return True
    return False


def _unscrubbed(spec: TableSpec) -> dict[str, Any]:
    """A scrubbed table's batches read only rows not yet scrubbed (so the loop ends, and a rerun skips them)."""
    if spec.action != "scrub":
        return {}
    column, marker = next((c, v) for c, v in spec.scrub.items() if v is not None)
    return {"unscrubbed": (column, marker)}
