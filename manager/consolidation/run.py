"""`memgate consolidate`: look again at what is stored, scope by scope, and propose merges for review.

A dry run (the default) reads and reports: each merge it would propose and the counts by reason and
record type. `apply` records the new proposals (each once) for a review, and carries out the merges
a review approved, and nothing else: a record no review approved is never touched, and nothing is
ever deleted (proposals.py). Scopes are examined one at a time, each exactly (its own user, agent
and thread): two records of different scopes are never each other's duplicates, while a note is
compared with every passage its scope can see.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..backend.base import Backend
from ..clock import now_iso
from ..kb.embed import Embedder
from ..portability.scopes import Triple, check_scope
from . import detect, proposals, records

__all__ = ["ConsolidationReport", "Found", "consolidate"]


@dataclass(frozen=True)
class Found:
    triple: Triple
    match: detect.Match


@dataclass
class ConsolidationReport:
    tenant: str
    kind: str
    subject: str | None
    applied_run: bool
    found: list[Found] = field(default_factory=list)
    #: family -> current records examined
    examined: dict[str, int] = field(default_factory=dict)
    recorded: int = 0
    proposed_before: int = 0
    applied: int = 0
    gone: int = 0

    def counts(self) -> dict[str, dict[str, int]]:
        """reason -> family of the record that would end -> merges."""
        out: dict[str, dict[str, int]] = {}
        for f in self.found:
            by = out.setdefault(f.match.reason, {})
            by[f.match.retire.family] = by.get(f.match.retire.family, 0) + 1
        return out


def consolidate(
    backend: Backend,
    embedder: Embedder,
    tenant: str,
    kind: str = "tenant",
    subject: str | None = None,
    *,
    apply: bool = False,
    principal: str = "cli:operator",
    progress: Callable[[str], None] | None = None,
) -> ConsolidationReport:
    check_scope(kind, subject)
    say = progress or (lambda line: None)
    now = now_iso()
    report = ConsolidationReport(tenant, kind, subject, apply)
    with backend.retention_store(tenant) as store:
        scopes = records.keys_by_scope(store, kind, subject)
        claims = records.claims_seen(backend, store, tenant, list(scopes), principal, now)
        for triple, keys in scopes.items():
            scope = records.scope_records(backend, tenant, triple, keys, principal, now, embedder)
            for item in scope.items:
                report.examined[item.family] = report.examined.get(item.family, 0) + 1
            matches = detect.near_duplicates(scope.items)
            retired = {m.retire.id for m in matches}
            for m in detect.stale([i for i in scope.items if i.id not in retired], claims.get(triple, [])):
                matches.append(m)
                retired.add(m.retire.id)
            for note in (i for i in scope.items if i.family == "note" and i.id not in retired):
                near = records.passages_near(backend, tenant, triple, note, principal, now, embedder.name)
                if (repeat := detect.repeats(note, near)) is not None:
                    matches.append(repeat)
            report.found += [Found(triple, m) for m in matches]
            say(f"scope {_scope_name(triple)}: {len(scope.items)} record(s), {len(matches)} merge(s) found")
        if apply:
            for f in report.found:
                if proposals.propose(store, f.triple, f.match, principal, now):
                    report.recorded += 1
                else:
                    report.proposed_before += 1
            done = proposals.apply_approved(backend, store, None if kind == "tenant" else set(scopes), principal, now)
            report.applied, report.gone = done["applied"], done["gone"]
    return report


def _scope_name(triple: Triple) -> str:
    parts = [f"{k}={v}" for k, v in zip(("user", "agent", "thread"), triple) if v]
    return ", ".join(parts) or "tenant-wide"
