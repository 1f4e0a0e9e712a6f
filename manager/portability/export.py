"""`memgate export`: every record a scope owns, into one bundle (bundle.py), a batch at a time.

For each table the retention registry lists (but those it marks not exported, such as a derived
index), the operator's store lists the keys and scopes of the scope's rows (what `memgate forget`
would erase; no content), a page at a time; each page's rows are then read whole by a session bound
to their own (user, agent, thread), so the wall decides what is read, as for any tool call, and a
row the wall does not show is not exported. A row read back in another scope than listed stops the
export (it would mean the wall failed). Then the rows another principal shares with the scope are
listed by id and scope, without content. Nothing is held but one page: memory does not grow with
the tenant. Last, the export is recorded (log.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..backend.base import Backend, Row
from ..backend.portable_rows import PortableRows
from ..backend.retention_store import RetentionStore, RowFilter
from ..clock import now_iso
from ..errors import AccessDenied
from ..retention.registry import REGISTRY, TableSpec
from . import log
from .bundle import BundleWriter
from .scopes import (
    SUBJECT_COLUMNS,
    Triple,
    by_triple,
    check_scope,
    exported_specs,
    identity_for,
    owned_filters,
    triple_of,
    visible_from,
)

__all__ = ["DEFAULT_BATCH", "FILE_COLUMNS", "SMALL_PAGES", "ExportReport", "export_scope"]

DEFAULT_BATCH = 500
#: binary columns written as files beside the rows, with the column naming their type
FILE_COLUMNS = {"image_memory": ("bytes", "mime_type")}
#: tables one row of which can be megabytes (an image's bytes, a document's full text): read a few
#: rows at a time, so a page is bounded in bytes as well as rows
SMALL_PAGES = {"image_memory": 8, "knowledge_base_document": 16}


@dataclass
class ExportReport:
    tenant: str
    kind: str
    subject: str | None
    path: Path
    #: table -> rows written
    counts: dict[str, int] = field(default_factory=dict)
    shared: int = 0
    images: int = 0
    sha256: str = ""
    record_id: str = ""
    #: table -> why it was not exported
    left_out: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def export_scope(
    backend: Backend,
    tenant: str,
    kind: str,
    subject: str | None,
    path: Path | str,
    *,
    requested_by: str,
    batch: int = DEFAULT_BATCH,
    progress: Callable[[str], None] | None = None,
) -> ExportReport:
    """Write the scope's bundle into `path` (a new or empty folder) and record the export."""
    check_scope(kind, subject)
    say = progress or (lambda line: None)
    writer = BundleWriter(Path(path))
    report = ExportReport(tenant, kind, None if kind == "tenant" else subject, Path(path))
    owned: set[Triple] = set()
    specs = exported_specs()
    with backend.retention_store(tenant) as store:
        for spec in specs:
            report.counts[spec.table] = _export_table(backend, store, writer, spec, report, requested_by, batch, owned)
            say(f"{spec.table}: {report.counts[spec.table]} row(s)")
        if kind != "tenant":
            report.shared = _list_shared(store, writer, kind, subject, sorted(owned, key=str), batch)
            say(f"shared with the scope, listed: {report.shared} row(s)")
        report.left_out = {s.table: s.not_exported for s in REGISTRY if s.not_exported}
        head = {
            "tenant": tenant,
            "scope": {"kind": kind, "subject": report.subject},
            "exported_at": now_iso(),
            "exported_by": requested_by,
            "left_out": report.left_out,
        }
        manifest, report.sha256 = writer.close(head, [s.table for s in specs])
        report.images = manifest["images"]["files"]
        report.record_id = log.record(
            store,
            action="export",
            kind=kind,
            subject=report.subject,
            requested_by=requested_by,
            counts={**report.counts, "shared (listed)": report.shared},
            sha256=report.sha256,
        )
    return report


def _export_table(
    backend: Backend,
    store: RetentionStore,
    writer: BundleWriter,
    spec: TableSpec,
    report: ExportReport,
    principal: str,
    batch: int,
    owned: set[Triple],
) -> int:
    written = 0
    size = min(batch, SMALL_PAGES.get(spec.table, batch))
    for where in owned_filters(spec, report.kind, report.subject):
        while page := store.select(spec.shape(), where, size):
            where = replace(where, after=str(page[-1]["row_key"]))
            written += _export_page(backend, writer, spec, report.tenant, principal, page, owned)
    return written


def _export_page(
    backend: Backend,
    writer: BundleWriter,
    spec: TableSpec,
    tenant: str,
    principal: str,
    page: list[Row],
    owned: set[Triple],
) -> int:
    """Read one page's rows whole, each in its own scope, and write them (its rows die on return:
    the next page is read with none of this one held)."""
    rows: list[Row] = []
    for triple, listed in by_triple(page).items():
        owned.add(triple)
        with backend.session(identity_for(tenant, triple, principal)) as s:
            found = PortableRows(s, backend.portable_sql).by_keys(
                spec.table, spec.key, [str(r["row_key"]) for r in listed]
            )
        for row in found:
            _check_wall(spec, row, tenant, triple)
        rows += found
    for row in sorted(rows, key=lambda r: str(r[spec.key])):
        writer.row(spec.table, _portable(writer, spec, row))
    return len(rows)


def _check_wall(spec: TableSpec, row: Row, tenant: str, triple: Triple) -> None:
    """A row read through the wall is the tenant's and, unless scoped through its owner, the triple's."""
    if row.get("tenant_id") != tenant or (spec.through is None and triple_of(row) != triple):
        raise AccessDenied(
            f"{spec.table} {row.get(spec.key)!r} came back outside the scope it was read in; nothing was recorded",
            hint="This is a bug in the tenant wall: report it with the bundle folder.",
        )


def _portable(writer: BundleWriter, spec: TableSpec, row: Row) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if k not in spec.local}
    if spec.table in FILE_COLUMNS:
        column, type_column = FILE_COLUMNS[spec.table]
        if out.get(column) is not None:
            out[column] = writer.image(bytes(out[column]), str(out.get(type_column)))
    return out


def _list_shared(
    store: RetentionStore, writer: BundleWriter, kind: str, subject: str | None, owned: list[Triple], batch: int
) -> int:
    """List (table, id, scope) of the rows shared at the subject's level that one of the scope's own
    sessions would see: what another principal shares with it."""
    listed = 0
    if not owned:
        return 0
    for spec in exported_specs():
        if SUBJECT_COLUMNS[kind] not in spec.scope_columns:
            continue  # no row of it is shared at that level: the wall does not scope it there
        # a row the scope owns through another (a turn of the thread's conversation) was exported, not shared
        owners = [f.owned_by for f in owned_filters(spec, kind, subject) if f.owned_by is not None]
        where = RowFilter(null=(SUBJECT_COLUMNS[kind],), not_owned_by=owners[0] if owners else None)
        while page := store.select(spec.shape(), where, batch):
            where = replace(where, after=str(page[-1]["row_key"]))
            for r in page:
                if visible_from(triple_of(r), owned):
                    user, agent, thread = triple_of(r)
                    writer.shared(
                        {
                            "table": spec.table,
                            "id": r["row_key"],
                            "user_id": user,
                            "agent_id": agent,
                            "thread_id": thread,
                        }
                    )
                    listed += 1
    return listed
