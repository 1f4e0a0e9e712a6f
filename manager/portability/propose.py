"""`memgate import --from FORMAT`: another tool's memories, each a proposal to the promotion gate.

For each source a file holds (sources.py): the source's text is stored first, as a knowledge-base
document in the collection `imported` in the importing scope (the tenant, one user or one agent;
a plain JSONL line's own user), titled and keyed by the file's name and sha256, so the same file
imported again is the same document; a call-log row of the importing principal (`import:FORMAT`)
then cites its chunks, which is how a tool result gives a caller the records it may rest a memory
on. Each record is proposed through `MemoryManager.remember_imported` with the chunks holding its
lines as evidence, so every check the gate makes applies (deny patterns, evidence, scope,
duplicates, conflicts, the assessor and the tenant's thresholds and mode); the provenance of what
it promotes is that document, and what it holds back waits in `memgate candidates`. The per-caller
rate cap, an agent's, does not bound an operator's file. A dry run reads and prints, and stores
nothing.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..clock import now_iso
from ..errors import InvalidArgument
from ..identity import Identity
from ..promotion.duplicates import IMPORT_COLLECTION
from ..promotion.gate import MAX_EVIDENCE, Proposal
from ..registry.calllog import CallRecord
from .sources import Record, Source, read_sources

__all__ = ["COLLECTION", "ProposalReport", "propose_file"]

#: the knowledge-base collection the imported files are stored in, as the proposals' evidence
COLLECTION = IMPORT_COLLECTION
DECISIONS = ("promoted", "pending", "duplicate", "refused")


@dataclass
class ProposalReport:
    fmt: str
    path: Path
    dry_run: bool
    #: decision -> proposals (promoted, pending, duplicate, refused)
    decisions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DECISIONS, 0))
    #: rule -> proposals held back or refused with it
    rules: dict[str, int] = field(default_factory=dict)
    #: source name -> the document that stores it
    documents: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    proposed: int = 0
    seconds: float = 0.0

    @property
    def per_second(self) -> float:
        return self.proposed / self.seconds if self.seconds else 0.0


def propose_file(
    manager: Any,
    tenant: str,
    fmt: str,
    path: Path | str,
    *,
    user: str | None = None,
    agent: str | None = None,
    dry_run: bool = False,
    say: Callable[[str], None] | None = None,
) -> ProposalReport:
    """Propose every record of the file at `path` to `tenant`'s promotion gate (see the module doc).
    `manager` is a MemoryManager; `say` gets one line per proposal in a dry run, one per source else."""
    say = say or (lambda line: None)
    path = Path(path)
    if not path.exists():
        raise InvalidArgument(f"{path} does not exist", field="path")
    if user and agent:
        raise InvalidArgument("import into one user's scope or one agent's, not both", field="agent")
    report = ProposalReport(fmt, path, dry_run)
    sources = read_sources(fmt, path)
    for source in sources:
        report.skipped += [f"{source.name} {line}" for line in source.skipped]
        if user and source.user and source.user != user:
            report.skipped.append(f"{source.name}: {len(source.records)} record(s) of user {source.user}, not {user}")
            continue
        identity = Identity(tenant=tenant, user=source.user or user, agent=agent, principal=f"import:{fmt}")
        scope = "user" if identity.user else "agent" if agent else "tenant"
        if dry_run:
            for r in source.records:
                say(_line(r, scope, identity, source))
            report.proposed += len(source.records)
            continue
        if not source.records:
            continue
        started = time.perf_counter()
        chunks = _store(manager, identity, fmt, source, report)
        outputs = manager.remember_imported(
            identity,
            [_proposal(r, chunks, scope) for r in source.records],
            policy={"remember": {"default_scope": scope, "scopes": [scope]}},
        )
        report.seconds += time.perf_counter() - started
        report.proposed += len(outputs)
        for out in outputs:
            decision, rule = str(out.structured["decision"]), str(out.structured["rule"])
            report.decisions[decision] = report.decisions.get(decision, 0) + 1
            if decision in ("pending", "refused"):
                report.rules[rule] = report.rules.get(rule, 0) + 1
        say(f"{source.name}: {len(outputs)} proposal(s), source {report.documents[source.name]}")
    return report


def _line(r: Record, scope: str, identity: Identity, source: Source) -> str:
    who = {"user": f"user {identity.user}", "agent": f"agent {identity.agent}", "tenant": "tenant"}[scope]
    what = f"{r.subject} {r.predicate} = {r.content}" if r.kind == "fact" else r.content
    return f"would propose {r.kind:<4} [{who}] {what!r:.160} ({source.name} {r.where})"


def _store(manager: Any, identity: Identity, fmt: str, source: Source, report: ProposalReport) -> list[dict]:
    """Store the source's text as a document of the importing scope and issue its chunks to the
    importing principal (a call-log row citing them); the chunks with their offsets."""
    digest = hashlib.sha256(source.text.encode("utf-8")).hexdigest()
    stored = manager.ingest_text(
        identity,
        title=f"{fmt} import: {source.name}",
        text=source.text,
        source_uri=f"import://{fmt}/{source.name}#sha256={digest[:16]}",
        collection=COLLECTION,
        user_id=identity.user,
        agent_id=identity.agent if not identity.user else None,
    )
    report.documents[source.name] = stored.document_id
    with manager.backend.session(identity) as s:
        chunks = s.fetch_all("kb_document_chunks", document=stored.document_id)
    manager.log_call(
        identity,
        CallRecord(
            call_id=str(uuid.uuid4()),
            called_at=now_iso(),
            tool_name="memgate import",
            status="ok",
            arguments={"from": fmt, "source": source.name, "sha256": digest, "records": len(source.records)},
            result_text=f"source record {stored.document_id}: {len(chunks)} chunk(s), {len(source.records)} record(s)",
            cited_ids=tuple(c["id"] for c in chunks),
            rows_returned=len(chunks),
        ),
    )
    return chunks


def _proposal(r: Record, chunks: list[dict], scope: str) -> Proposal:
    evidence: list[str] = []
    for start, end in r.spans:
        holding = [c["id"] for c in chunks if c["char_start"] <= start and c["char_end"] >= end]
        touching = [c["id"] for c in chunks if c["char_start"] < end and c["char_end"] > start]
        for cid in holding[:1] or touching:
            if cid not in evidence:
                evidence.append(cid)
    return Proposal(r.content, r.kind, r.subject, r.predicate, tuple(evidence[:MAX_EVIDENCE]), scope)
