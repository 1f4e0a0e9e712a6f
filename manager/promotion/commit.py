"""The gate's one transaction: the candidate, its assessments, the record and its links, after a version check.

A note's record is written by kb/ingest.py's transaction with the gate's rows in its `write_also`
hook, a fact's by claims/entities.py correct_in. A proposal that restates the caller's own pending
candidate writes no candidate: it attaches to that one (duplicates.attach). The record, its chunks and
its links are written by the gate (`created_by` RECORD_WRITER) with an opaque source
`memory://remembered/<id>`: whoever reads the memory (an agent-scoped one reaches every user of the
agent) learns nothing of the principal that proposed it or of its candidate; the candidate, walled to
its proposer, keeps both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..backend.base import Backend, Row, Session
from ..clock import now_iso
from ..identity import Identity
from ..ids import new_id
from ..kb import ingest as kb_ingest
from ..kb.embed import Embedder
from ..links.store import write_link
from ..output.results import ToolOutput
from . import duplicates, records
from .assess import QUESTION_VERSION, QUESTIONS, Verdicts
from .evidence import Evidence, still_current
from .policy import PromotionPolicy
from .render import answer

__all__ = ["RECORD_WRITER", "EvidenceChanged", "Plan", "assessment_rows", "caller", "commit"]

#: who a promoted record says wrote it: the gate, never the proposer (the candidate names the proposer)
RECORD_WRITER = "memgate:promotion-gate"


@dataclass
class Plan:
    """What the code checks found, for the assessment and the commit."""

    evidence: list[Evidence]
    scope_columns: dict[str, str | None]
    policy: PromotionPolicy
    duplicate_of: Row | None = None  # a memory_items row, or an entity row
    attach_to: Row | None = None  # the caller's own pending candidate this proposal restates
    conflict_with: Row | None = None  # the current entity version
    refs: list[dict[str, Any]] = field(default_factory=list)
    confirmed: bool = False  # the user answered "replace" to the conflict
    sources: list[Any] = field(default_factory=list)  # the evidence as support.py reads it


class EvidenceChanged(Exception):
    """An evidence row changed between the checks and the commit (raised inside the transaction)."""


def caller(identity: Identity) -> str:
    return identity.principal or identity.user or "anonymous"


def _candidate_row(identity: Identity, p, plan: Plan, decision: str, rule: str, assessor, now: str) -> Row:
    return {
        "id": new_id("cand"),
        "tenant_id": identity.tenant,
        "user_id": identity.user,
        "agent_id": identity.agent,
        "thread_id": identity.thread if p.scope == "thread" else None,
        "kind": p.kind,
        "scope": p.scope,
        "subject": p.subject,
        "predicate": p.predicate,
        "content": p.content,
        "content_hash": p.content_hash,
        "evidence_json": json.dumps(plan.refs, sort_keys=True),
        "decision": decision,
        "rule": rule,
        "record_type": None,
        "record_id": None,
        "assessor": assessor,
        "policy_version": plan.policy.version,
        "reassess": 0,
        "version": 1,
        "valid_from": now,
        "created_by": caller(identity),
        "created_at": now,
    }


def assessment_rows(identity: Identity, candidate: Row, plan_policy: PromotionPolicy, verdicts: Verdicts, now: str):
    for q in QUESTIONS:
        p = verdicts.probabilities.get(q)
        yield {
            "id": new_id("asm"),
            "tenant_id": identity.tenant,
            "user_id": candidate["user_id"],
            "agent_id": candidate["agent_id"],
            "thread_id": candidate["thread_id"],
            "candidate_id": candidate["id"],
            "question": q,
            "question_version": QUESTION_VERSION,
            "policy_version": plan_policy.version,
            "assessor": verdicts.assessor,
            "probability": p,
            "threshold": plan_policy.thresholds[q],
            "passed": 1 if plan_policy.passes(q, p) else 0,
            "latency_ms": round(verdicts.latency_ms.get(q, 0.0), 3),
            "note": verdicts.note,
            "created_by": caller(identity),
            "created_at": now,
        }


def attach(backend: Backend, identity: Identity, plan: Plan) -> ToolOutput:
    """The proposal restates the caller's own pending candidate: its evidence joins that one."""
    row = plan.attach_to
    assert row is not None
    now = now_iso()
    with backend.session(identity, now=now) as s, s.transaction():
        duplicates.attach(s, row, plan.refs)
    return answer(
        "pending",
        "duplicate:pending",
        f"pending: you proposed this already ({row['id']}, waiting for review); your evidence was added to it and "
        "no second candidate was written.",
        candidate_id=row["id"],
    )


def commit(
    backend: Backend,
    identity: Identity,
    p,
    plan: Plan,
    decision: str,
    rule: str,
    sentence: str,
    verdicts: Verdicts | None,
    embedder: Callable[[], Embedder],
    *,
    check: bool = True,
) -> ToolOutput:
    now = now_iso()
    writer = replace(identity, principal=RECORD_WRITER)
    candidate = _candidate_row(identity, p, plan, decision, rule, verdicts.assessor if verdicts else None, now)
    if plan.duplicate_of is not None:
        candidate["record_type"] = plan.duplicate_of["memory_type"]
        candidate["record_id"] = plan.duplicate_of["id"]

    def write(s: Session, record: tuple[str, str] | None = None) -> None:
        if check and not still_current(s, plan.refs, now):
            raise EvidenceChanged
        if record is not None:
            candidate["record_type"], candidate["record_id"] = record
        s.insert("memory_candidate", candidate)
        if verdicts is not None:
            s.insert_many("memory_assessment", list(assessment_rows(identity, candidate, plan.policy, verdicts, now)))
        if record is not None:
            records.write_supports(s, writer, plan.evidence, records.link_end(*record, plan.scope_columns), now)
        if plan.conflict_with is not None and record is None:
            write_link(
                s,
                identity,
                records.link_end("memory_candidate", candidate["id"], candidate),
                "contradicts",
                records.link_end("entity_memory", plan.conflict_with["id"], plan.conflict_with),
                now=now,
                provenance="explicit",
            )

    if decision == "promoted" and p.kind != "fact":
        kb_ingest.ingest_text(
            lambda: backend.session(writer, now=now),
            writer,
            embedder(),
            now,
            title=records.note_title(p.kind, p.content),
            text=records.note_text(p.content, [e.id for e in plan.evidence]),
            source_uri=records.source_uri(),
            collection=records.COLLECTION,
            user_id=plan.scope_columns["user_id"],
            agent_id=plan.scope_columns["agent_id"],
            thread_id=plan.scope_columns["thread_id"],
            write_also=lambda s, doc_id: write(s, ("knowledge_base_document", doc_id)),
        )
    else:
        with backend.session(identity, now=now) as s, s.transaction():
            record = None
            if decision == "promoted":
                if check and not still_current(s, plan.refs, now):
                    raise EvidenceChanged
                assert p.subject is not None and p.predicate is not None  # a promoted fact: both required
                row = records.write_fact(
                    s,
                    writer,
                    subject=p.subject,
                    predicate=p.predicate,
                    content=p.content,
                    scope=plan.scope_columns,
                    now=now,
                )
                record = ("entity_memory", row["id"])
                replaced = plan.conflict_with
                if plan.confirmed and replaced is not None and row["source_id"] != replaced["id"]:
                    # the user replaced a value of another scope: the correction's link, written here
                    write_link(
                        s,
                        writer,
                        records.link_end("entity_memory", row["id"], row),
                        "supersedes",
                        records.link_end("entity_memory", replaced["id"], replaced),
                        now=now,
                        provenance="correction",
                    )
            write(s, record)
    return answer(
        decision,
        rule,
        sentence,
        record_id=candidate["record_id"] if decision in ("promoted", "duplicate") else None,
        candidate_id=candidate["id"],
    )
