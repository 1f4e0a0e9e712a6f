"""`memgate import` of a bundle (bundle.py) into this database, for its tenant or another one.

First the whole bundle is checked against its manifest (each file's row count and sha256, each
image against its name, the manifest against the hash the export printed when given); any mismatch,
or a table this memgate does not know, refuses the bundle before anything is written. Then each
table, owners first, a batch at a time: every row is written by a session bound to its own (user,
agent, thread) in the target tenant, so the wall checks it like any write, and it is

    inserted    when the target has no row with its key,
    unchanged   when the target's row is the same,
    updated     when the bundle holds a newer version of it (a higher version; at the same version,
                only a lifecycle the target has not ended yet: valid_until, deleted_at),
    kept        when the target's is newer or differs otherwise (never overwritten),
    refused     when the database refuses it (another row holds its unique key), with the reason.

So importing twice changes nothing the second time. Into the tenant it came from, ids and versions
are kept; into another tenant every id the bundle holds is mapped, the same way each time (a hash
of the target tenant and the id, keeping the id's prefix), in every column and inside JSON columns
that name it; free text that quotes an id (a remembered note's "Evidence:" line) keeps the old one.
Rows the database derives (the lexical index, embeddings caches, a derived table the registry
marks not exported) are rebuilt by the database's own triggers, or named in the report.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from ..backend.base import Backend, Row
from ..backend.portable_rows import PortableRows
from ..errors import InvalidArgument, MemgateError
from ..retention.registry import TableSpec
from . import log
from .bundle import BundleReader, float32_bytes
from .scopes import Triple, exported_specs, identity_for, triple_of

__all__ = ["IdMap", "ImportReport", "import_bundle"]

DEFAULT_BATCH = 500
#: columns holding an embedding (float32 bytes in a bundle)
VECTOR_COLUMNS = frozenset({"embedding"})
#: lifecycle columns a later export may have set on the same version of a row
LIFECYCLE = ("valid_until", "deleted_at")
OUTCOMES = ("inserted", "unchanged", "updated", "kept", "refused")


@dataclass
class ImportReport:
    tenant: str
    source_tenant: str
    path: Path
    sha256: str
    dry_run: bool
    #: table -> outcome -> rows
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    #: ids mapped to new ones (an import into another tenant)
    mapped: int = 0
    #: the first reasons rows were refused, "table id: reason"
    refusals: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)
    record_id: str = ""

    def total(self, outcome: str) -> int:
        return sum(c.get(outcome, 0) for c in self.counts.values())


class IdMap:
    """Ids of the bundle's rows, mapped for another tenant: `prefix_` + a hash of tenant and id."""

    def __init__(self, tenant: str, ids: set[str]):
        self.tenant = tenant
        self.ids = ids

    def new(self, old: str) -> str:
        prefix = old.split("_", 1)[0] + "_" if "_" in old else ""
        return prefix + hashlib.sha256(f"{self.tenant}\0{old}".encode()).hexdigest()[:24]

    def value(self, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        if value in self.ids:
            return self.new(value)
        if value[:1] in ("[", "{"):
            try:
                parsed = json.loads(value)
            except ValueError:
                return value
            mapped = self._walk(parsed)
            return json.dumps(mapped, sort_keys=True) if mapped != parsed else value
        return value

    def _walk(self, node: Any) -> Any:
        if isinstance(node, str):
            return self.new(node) if node in self.ids else node
        if isinstance(node, list):
            return [self._walk(n) for n in node]
        if isinstance(node, dict):
            return {k: self._walk(v) for k, v in node.items()}
        return node


def import_bundle(
    backend: Backend,
    path: Path | str,
    *,
    requested_by: str,
    tenant: str | None = None,
    expected_sha256: str | None = None,
    batch: int = DEFAULT_BATCH,
    dry_run: bool = False,
    progress: Callable[[str], None] | None = None,
) -> ImportReport:
    """Import the bundle at `path` (into `tenant`, default the one it came from); see the module doc."""
    say = progress or (lambda line: None)
    reader = BundleReader(path)
    problems = reader.verify(expected_sha256)
    known = {s.table: s for s in exported_specs()}
    problems += [f"{t}: this memgate has no such table" for t in sorted(set(reader.tables) - set(known))]
    if problems:
        raise InvalidArgument(
            "the bundle does not match its manifest; nothing was imported: " + "; ".join(problems[:5]),
            field="bundle",
            hint="Export it again, or copy the whole folder: every file the manifest names, unchanged.",
        )
    source = str(reader.manifest.get("tenant") or "")
    target = tenant or source
    report = ImportReport(target, source, Path(path), reader.sha256, dry_run)
    report.left_out = dict(reader.manifest.get("left_out") or {})
    ids = None
    if target != source:
        ids = IdMap(target, {k for s in known.values() for k in reader.keys(s.table, s.key)})
        report.mapped = len(ids.ids)
    owners: dict[str, Triple] = {}  # a store's id -> its scope, for the files scoped through it
    for spec in known.values():
        if spec.table not in reader.tables:
            continue
        counts = report.counts.setdefault(spec.table, dict.fromkeys(OUTCOMES, 0))
        for page in _pages(reader.rows(spec.table), batch):
            rows = [_prepare(spec, row, target, ids) for row in page]
            if spec.table in {s.through[1] for s in known.values() if s.through}:
                owners.update({str(r[spec.key]): triple_of(r) for r in rows})
            for triple, group in _groups(spec, rows, owners).items():
                _write_group(backend, spec, target, triple, group, requested_by, dry_run, counts, report)
            say(f"{spec.table}: " + ", ".join(f"{n} {o}" for o, n in counts.items() if n))
    if not dry_run:
        with backend.retention_store(target) as store:
            report.record_id = log.record(
                store,
                action="import",
                kind=str((reader.manifest.get("scope") or {}).get("kind") or "tenant"),
                subject=(reader.manifest.get("scope") or {}).get("subject"),
                requested_by=requested_by,
                counts={t: c["inserted"] + c["updated"] for t, c in report.counts.items()},
                sha256=reader.sha256,
                source_tenant=source,
            )
    return report


def _pages(rows: Iterable[Row], size: int) -> Iterator[list[Row]]:
    it = iter(rows)
    while page := list(islice(it, size)):
        yield page


def _prepare(spec: TableSpec, row: Row, tenant: str, ids: IdMap | None) -> Row:
    out = {k: v for k, v in row.items() if k not in spec.local}
    if ids is not None:
        out = {k: ids.value(v) for k, v in out.items()}
    out["tenant_id"] = tenant
    return out


def _groups(spec: TableSpec, rows: list[Row], owners: dict[str, Triple]) -> dict[Triple, list[Row]]:
    groups: dict[Triple, list[Row]] = {}
    for r in rows:
        if spec.through is not None:
            triple = owners.get(str(r[spec.through[0]]), (None, None, None))
        else:
            triple = triple_of(r)
        groups.setdefault(triple, []).append(r)
    return groups


def _write_group(
    backend: Backend,
    spec: TableSpec,
    tenant: str,
    triple: Triple,
    rows: list[Row],
    principal: str,
    dry_run: bool,
    counts: dict[str, int],
    report: ImportReport,
) -> None:
    with backend.session(identity_for(tenant, triple, principal)) as s:
        io = PortableRows(s, backend.portable_sql)
        existing = {str(r[spec.key]): r for r in io.by_keys(spec.table, spec.key, [str(r[spec.key]) for r in rows])}
        plans = [(row, *_decide(existing.get(str(row[spec.key])), row)) for row in rows]
        if dry_run:
            for _, outcome, _ in plans:
                counts[outcome] += 1
            return
        with s.transaction():
            for row, outcome, changes in plans:
                try:
                    if outcome == "inserted":
                        s.insert(spec.table, _bindable(row))
                    elif outcome == "updated":
                        io.update(spec.table, spec.key, str(row[spec.key]), _bindable(changes))
                except MemgateError as exc:
                    outcome = "refused"
                    if len(report.refusals) < 20:
                        report.refusals.append(f"{spec.table} {row[spec.key]}: {exc.message}")
                counts[outcome] += 1


def _bindable(row: Row) -> Row:
    """An embedding's bytes as the float32 vector every backend binds to its vector column (SQLite
    stores the same bytes back; Oracle a VECTOR)."""
    return {
        k: np.frombuffer(v, dtype="<f4").copy() if k in VECTOR_COLUMNS and isinstance(v, bytes) else v
        for k, v in row.items()
    }


def _comparable(value: Any) -> Any:
    """A value as a bundle holds it: a vector a driver returns as an array, as its float32 bytes."""
    if hasattr(value, "tolist") or type(value).__name__ == "array":
        return float32_bytes(value)
    return value


def _decide(existing: Row | None, row: Row) -> tuple[str, dict[str, Any]]:
    """(outcome, the columns an update sets) for one bundle row against the target's row."""
    if existing is None:
        return "inserted", {}
    differ = {k for k, v in row.items() if _comparable(existing.get(k)) != v}
    if not differ:
        return "unchanged", {}
    have, bring = existing.get("version"), row.get("version")
    if isinstance(have, int) and isinstance(bring, int) and bring > have:
        return "updated", {k: row[k] for k in differ}
    if have == bring and differ <= set(LIFECYCLE) and all(existing.get(k) is None for k in differ):
        return "updated", {k: row[k] for k in differ}
    return "kept", {}
