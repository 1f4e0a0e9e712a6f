"""The operator's side of the gate (`memgate candidates ...`): list, show, approve, reject, reassess,
and the tenant's policy. Not on MemoryManager: no tool reaches these; the CLI calls them.

Reading is unwalled, a tenant at a time (operator statements). Deciding acts as the candidate's
proposer, through the wall (its user, agent and thread), so what an approval writes is exactly
what the gate would have written for that caller: approve re-runs the commit with its version
check (every evidence row still the version the gate read, and current), writes the record and
its `supports` links, and marks the candidate `approved`. The proposer's conversation comes along
(its thread, from the candidate or from a thread-bound evidence row), so evidence that is a turn of
that conversation is as visible to the approval as it was to the gate. Nobody approves their own
proposal: the reviewer's principal is compared with the proposer's inside the deciding transaction. An approved conflicting fact is written
as the claim's next version in the proposer's scope, through the correction path (its
`supersedes` link included when the scope is the current value's).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ..backend.base import Row
from ..claims.guidelines import current_guidelines, update_guideline
from ..clock import now_iso
from ..errors import AccessDenied, Conflict, NotFound
from ..identity import Identity
from ..kb import ingest as kb_ingest
from . import records
from .assess import RulesAssessor
from .evidence import Evidence, record_scope, still_current
from .gate import Proposal
from .policy import POLICY_KEY, PromotionPolicy, read_policy
from .reassess import evidence_rows, mark_stale

__all__ = [
    "OwnCandidate",
    "approve",
    "approve_row",
    "candidate",
    "candidate_json",
    "candidates",
    "policy",
    "reassess",
    "reject",
    "reject_row",
    "set_policy",
]

OPERATOR = "cli:operator"


class OwnCandidate(AccessDenied):
    """A reviewer asked to approve a candidate it proposed itself."""


def candidates(manager, tenant: str, *, decision: str | None = None, reassess: bool | None = None, limit: int = 50):
    """A tenant's candidates of every scope, newest first (and whether more exist)."""
    with manager.backend.operator_session() as s:
        return s.fetch_page(
            "operator_candidate_list",
            limit,
            tenant=tenant,
            decision=decision,
            reassess=None if reassess is None else int(reassess),
        )


def candidate(manager, tenant: str, candidate_id: str) -> tuple[Row, list[Row]]:
    """One candidate and its assessments."""
    with manager.backend.operator_session() as s:
        row = s.fetch_one("operator_candidate_by_id", tenant=tenant, id=candidate_id)
        if row is None:
            raise NotFound(
                f"tenant {tenant} has no candidate {candidate_id}",
                hint=f"List them with `memgate candidates ls -t {tenant}`.",
            )
        return row, s.fetch_all("operator_candidate_assessments", tenant=tenant, candidate_id=candidate_id)


def candidate_json(c: Row) -> dict[str, Any]:
    """A candidate as the memory view shows it (and `memgate ui` for the operator)."""
    return {
        "id": c["id"],
        "version": int(c["version"]),
        "kind": c["kind"],
        "scope": c["scope"],
        "user": c["user_id"],
        "subject": c["subject"],
        "predicate": c["predicate"],
        "content": c["content"],
        "decision": c["decision"],
        "rule": c["rule"],
        "record_id": c["record_id"],
        "created_at": c["created_at"],
        "decided_by": c["decided_by"],
    }


def _owner(tenant: str, row: Row) -> Identity:
    """The proposer as the gate saw it: its user, agent and conversation (a thread-scoped candidate's
    thread, else the thread its evidence was read in), so the approval sees the same evidence."""
    return Identity(
        tenant=tenant,
        user=row["user_id"],
        agent=row["agent_id"],
        thread=row["thread_id"] or _evidence_thread(row),
        principal=OPERATOR,
    )


def _evidence_thread(row: Row) -> str | None:
    threads = {r.get("thread") for r in json.loads(row["evidence_json"] or "[]")} - {None}
    return next(iter(threads)) if len(threads) == 1 else None


def _proposal(row: Row) -> Proposal:
    return Proposal(
        row["content"],
        row["kind"],
        row["subject"],
        row["predicate"],
        tuple(r["id"] for r in json.loads(row["evidence_json"])),
        row["scope"],
    )


def approve(
    manager,
    tenant: str,
    candidate_id: str,
    *,
    operator: str = OPERATOR,
    version: int | None = None,
    reviewer: str | None = None,
) -> Row:
    """Promote a pending candidate (the gate's transaction, with its version check); the decided row.

    With `version` (a page's button is bound to the version it showed) a candidate at any other
    version is refused; either way the deciding transaction reads the version again. `reviewer` is the
    principal deciding (the operator's name when None): never the candidate's proposer."""
    row, _ = candidate(manager, tenant, candidate_id)
    return approve_row(manager, tenant, row, operator=operator, version=version, reviewer=reviewer)


def approve_row(
    manager, tenant: str, row: Row, *, operator: str, version: int | None = None, reviewer: str | None = None
) -> Row:
    pending(row, version)
    not_own(row, reviewer or operator)
    return _promote(
        manager, tenant, row, rule="review:approved", decision="approved", operator=operator, reviewer=reviewer
    )


def not_own(row: Row, reviewer: str | None) -> None:
    """Refuse an approval by the principal that proposed the candidate."""
    if reviewer is not None and row.get("created_by") == reviewer:
        raise OwnCandidate(
            f"candidate {row['id']} was proposed by {reviewer} itself; a different reviewer approves it; "
            "nothing was written"
        )


def reject(manager, tenant: str, candidate_id: str, *, operator: str = OPERATOR, version: int | None = None) -> Row:
    row, _ = candidate(manager, tenant, candidate_id)
    return reject_row(manager, tenant, row, operator=operator, version=version)


def pending(row: Row, version: int | None) -> None:
    """Refuse a decision on a candidate that is not pending, or not at the version the reviewer saw."""
    if row["decision"] != "pending":
        raise Conflict(f"candidate {row['id']} is {row['decision']}, not pending; nothing was written")
    if version is not None and row["version"] != version:
        raise Conflict(
            f"candidate {row['id']} is at version {row['version']}, not the version {version} you saw; "
            "nothing was written"
        )


def reject_row(manager, tenant: str, row: Row, *, operator: str, version: int | None = None) -> Row:
    pending(row, version)
    now = now_iso()
    with manager.backend.session(replace(_owner(tenant, row), principal=operator), now=now) as s, s.transaction():
        _decide(s, row, "rejected", "review:rejected", None, None, operator, now, reassess=0)
    return {**row, "decision": "rejected", "rule": "review:rejected", "version": row["version"] + 1}


def unchanged(s, row: Row, reviewer: str | None = None) -> None:
    """Inside the deciding transaction: the candidate is still at the version that was judged, and (for an
    approval) `reviewer` is not the principal that proposed it."""
    now_row = s.fetch_one("candidate_for_decision", id=row["id"])
    if now_row is None or now_row["version"] != row["version"]:
        raise Conflict(f"candidate {row['id']} changed while it was being decided; nothing was written")
    not_own({**row, "created_by": now_row["created_by"]}, reviewer)


def _decide(s, row, decision, rule, record_type, record_id, operator, now, *, reassess: int) -> None:
    unchanged(s, row)
    s.execute(
        "candidate_decide",
        id=row["id"],
        decision=decision,
        rule=rule,
        record_type=record_type,
        record_id=record_id,
        reassess=reassess,
        decided_by=operator,
        decided_at=now,
        version=row["version"],
    )


def _promote(
    manager, tenant: str, row: Row, *, rule: str, decision: str, operator: str, reviewer: str | None = None
) -> Row:
    owner = replace(_owner(tenant, row), principal=operator)
    p = _proposal(row)
    refs = json.loads(row["evidence_json"])
    scope = record_scope(owner, p.scope)
    now = now_iso()
    with manager.backend.session(owner, now=now) as s:
        evidence = [Evidence(r) for r in evidence_rows(s, refs)]
    if len(evidence) != len(refs):
        raise Conflict(
            f"candidate {row['id']}'s evidence is no longer there as the gate read it; nothing was written",
            hint=f"Reassess it: `memgate candidates reassess -t {tenant}`.",
        )

    def write(s, record: tuple[str, str]) -> None:
        unchanged(s, row, reviewer or operator)
        if not still_current(s, refs, now):
            raise Conflict(f"candidate {row['id']}'s evidence changed; nothing was written")
        records.write_supports(s, owner, evidence, records.link_end(*record, scope), now)
        _decide(s, row, decision, rule, record[0], record[1], operator, now, reassess=0)

    if p.kind == "fact":
        assert p.subject is not None and p.predicate is not None  # a fact: check_proposal requires both
        with manager.backend.session(owner, now=now) as s, s.transaction():
            fact = records.write_fact(
                s, owner, subject=p.subject, predicate=p.predicate, content=p.content, scope=scope, now=now
            )
            write(s, ("entity_memory", fact["id"]))
            record = ("entity_memory", fact["id"])
    else:
        result = kb_ingest.ingest_text(
            lambda: manager.backend.session(owner, now=now),
            owner,
            manager.embedder,
            now,
            title=records.note_title(p.kind, p.content),
            text=records.note_text(p.content, [e.id for e in evidence]),
            source_uri=records.source_uri(),
            collection=records.COLLECTION,
            user_id=scope["user_id"],
            agent_id=scope["agent_id"],
            thread_id=scope["thread_id"],
            write_also=lambda s, doc_id: write(s, ("knowledge_base_document", doc_id)),
        )
        record = ("knowledge_base_document", result.document_id)
    return {
        **row,
        "decision": decision,
        "rule": rule,
        "record_type": record[0],
        "record_id": record[1],
        "version": row["version"] + 1,
    }


def reassess(manager, tenant: str, *, operator: str = OPERATOR) -> list[tuple[str, str]]:
    """Mark the promoted memories whose evidence is no longer the version they rest on, then run the
    gate's checks and the rules assessor again on every marked one: (candidate id, outcome) each."""
    outcomes: list[tuple[str, str]] = []
    promoted, _ = candidates(manager, tenant, limit=10_000)
    for row in promoted:
        if row["decision"] in ("promoted", "approved") and not row["reassess"]:
            owner = _owner(tenant, row)
            now = now_iso()
            with manager.backend.session(owner, now=now) as s, s.transaction():
                if not still_current(s, json.loads(row["evidence_json"]), now):
                    mark_stale(s, [(row["record_type"], row["record_id"])], now)
    marked, _ = candidates(manager, tenant, reassess=True, limit=10_000)
    for row in marked:
        outcomes.append((row["id"], _reassess_one(manager, tenant, row, operator)))
    return outcomes


def _reassess_one(manager, tenant: str, row: Row, operator: str) -> str:
    owner = _owner(tenant, row)
    refs = json.loads(row["evidence_json"])
    now = now_iso()
    with manager.backend.session(owner, now=now) as s:
        current = evidence_rows(s, [{"type": r["type"], "id": r["id"]} for r in refs], now)
        policy_now = read_policy(s, now)
    if len(current) != len(refs):
        with manager.backend.session(replace(owner, principal=operator), now=now) as s, s.transaction():
            _decide(
                s,
                row,
                "pending",
                "reassess:evidence_gone",
                row["record_type"],
                row["record_id"],
                operator,
                now,
                reassess=0,
            )
        return "pending: an evidence record is gone or no longer current"
    p = _proposal(row)
    verdicts = RulesAssessor().assess(_request(p, [Evidence(r).text for r in current]))
    failed = [q for q, v in verdicts.probabilities.items() if not policy_now.passes(q, v)]
    if failed:
        with manager.backend.session(replace(owner, principal=operator), now=now) as s, s.transaction():
            _decide(
                s,
                row,
                "pending",
                f"reassess:{failed[0]}",
                row["record_type"],
                row["record_id"],
                operator,
                now,
                reassess=0,
            )
        return f"pending: {failed[0]} fails against the evidence as it is now"
    fresh = {**row, "evidence_json": json.dumps([Evidence(r).ref(owner.thread) for r in current], sort_keys=True)}
    with manager.backend.session(owner, now=now) as s, s.transaction():
        s.execute("candidate_update_evidence", id=row["id"], evidence_json=fresh["evidence_json"])
    promoted = _promote(manager, tenant, fresh, rule="reassessed", decision=row["decision"], operator=operator)
    return f"promoted again as {promoted['record_id']}"


def _request(p: Proposal, texts: list[str]):
    from .assess import AssessmentRequest

    return AssessmentRequest(p.kind, p.content, p.scope, tuple(texts), p.subject, p.predicate)


def policy(manager, tenant: str) -> PromotionPolicy:
    with manager.backend.session(Identity(tenant=tenant, principal=OPERATOR)) as s:
        return read_policy(s, now_iso())


def set_policy(manager, tenant: str, changes: dict[str, Any], *, operator: str = OPERATOR) -> PromotionPolicy:
    """A policy update: the tenant's policy with `changes` merged in, checked, as the guideline's next version."""
    identity = Identity(tenant=tenant, principal=operator)
    now = now_iso()
    with manager.backend.session(identity, now=now) as s:
        current = read_policy(s, now).to_json()
        merged = {**current, **changes}
        checked = PromotionPolicy.from_json(merged)
        existing = current_guidelines(s, now, POLICY_KEY).get(POLICY_KEY)
        row = update_guideline(
            s,
            identity,
            row_id=existing["row_id"] if existing else POLICY_KEY,
            key=POLICY_KEY,
            content="How this tenant promotes what agents propose to remember (the promotion gate's policy).",
            now=now,
            content_json=checked.to_json(),
        )
    return replace(checked, version=int(row["version"]))
