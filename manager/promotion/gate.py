"""The promotion gate: one proposal, code checks first, typed assessments second, one transaction.

Order (the article on governing agent memory with typed assessments): the checks that cost
nothing run first and spend no assessment. A refusal writes nothing (the call log keeps the
call): a rate past the cap, a scope the toolbox row does not allow or one wider than the
evidence's, a deny pattern (named), evidence that is no record the caller was given (absent,
another user's or tenant's and never-shown are one answer). An exact duplicate of a current
record is `duplicate`, naming it; a fact whose subject and predicate have another current value
is `pending` with rule `conflict`, naming that value, and `contradicts` it (a link from the
candidate). Only then the assessor answers the three questions; the tenant's thresholds decide.
The candidate, its assessments, the record and its `supports` links commit together, after a
version check: an evidence row that changed while the gate ran sends the proposal through the
gate again (once; a second change leaves it pending).
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from ..backend.base import Backend, Row, Session
from ..claims import entities
from ..clock import now_iso
from ..errors import InvalidArgument
from ..identity import Identity
from ..ids import new_id
from ..kb import ingest as kb_ingest
from ..kb.embed import Embedder
from ..limits import CapsSettings
from ..links.store import ends_by_id, write_link
from ..output.results import ToolOutput
from . import records
from .assess import QUESTION_VERSION, QUESTIONS, AssessmentRequest, Assessors, Sampler, Verdicts
from .evidence import Evidence, given_evidence, record_scope, still_current, wider_than
from .policy import PromotionPolicy, read_policy
from .render import answer

__all__ = ["KINDS", "SCOPES", "Proposal", "check_proposal", "remember"]

KINDS = ("note", "fact", "preference", "procedure")
SCOPES = ("user", "agent", "thread", "tenant")
#: the scopes a remember row allows when its access_policy does not list them (tenant-wide needs the operator)
DEFAULT_ROW_SCOPES = ("user", "agent", "thread")
MAX_EVIDENCE = 20


@dataclass(frozen=True)
class Proposal:
    content: str
    kind: str = "note"
    subject: str | None = None
    predicate: str | None = None
    evidence: tuple[str, ...] = ()
    scope: str = "user"

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(_normal(self.content).encode("utf-8")).hexdigest()


@dataclass
class _Plan:
    """What the code checks found, for the assessment and the commit."""

    evidence: list[Evidence]
    scope_columns: dict[str, str | None]
    policy: PromotionPolicy
    duplicate_of: Row | None = None  # a memory_items row, or an entity row
    conflict_with: Row | None = None  # the current entity version
    refs: list[dict[str, Any]] = field(default_factory=list)
    confirmed: bool = False  # the user answered "replace" to the conflict


class _EvidenceChanged(Exception):
    """An evidence row changed between the checks and the commit (raised inside the transaction)."""


def _normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def check_proposal(
    proposal: Proposal, caps: CapsSettings, row_policy: dict[str, Any] | None, identity: Identity
) -> Proposal:
    """Bad input is one clear InvalidArgument and nothing else happens."""
    if proposal.kind not in KINDS:
        raise InvalidArgument(f"kind must be one of {', '.join(KINDS)}, got {proposal.kind!r:.40}", field="kind")
    settings = (row_policy or {}).get("remember") or {}
    scope = proposal.scope or settings.get("default_scope") or "user"
    if scope not in SCOPES:
        raise InvalidArgument(f"scope must be one of {', '.join(SCOPES)}, got {scope!r:.40}", field="scope")
    content = proposal.content.strip() if isinstance(proposal.content, str) else ""
    if not content:
        raise InvalidArgument("content must be a non-empty string: the claim in a sentence or a few", field="content")
    if len(content) > caps.max_memory_chars:
        raise InvalidArgument(
            f"content is {len(content)} characters; a memory holds at most {caps.max_memory_chars}",
            field="content",
            hint="Remember one claim, in a sentence or a few.",
        )
    if proposal.kind == "fact" and not (proposal.subject and proposal.predicate):
        missing = "subject" if not proposal.subject else "predicate"
        raise InvalidArgument(
            f"a fact needs a subject and a predicate (as lookup_entity takes them); {missing} is missing",
            field=missing,
        )
    evidence = tuple(proposal.evidence or ())
    if len(evidence) > MAX_EVIDENCE or not all(isinstance(e, str) and 0 < len(e) <= 200 for e in evidence):
        raise InvalidArgument(f"evidence must be at most {MAX_EVIDENCE} record ids", field="evidence")
    needs = {"user": identity.user, "agent": identity.agent, "thread": identity.thread}.get(scope, "tenant")
    if not needs:
        raise InvalidArgument(f"scope {scope} needs a caller with a {scope}; this one has none", field="scope")
    subject = proposal.subject if proposal.kind == "fact" else None
    predicate = proposal.predicate if proposal.kind == "fact" else None
    return replace(
        proposal,
        content=content,
        scope=scope,
        evidence=tuple(dict.fromkeys(evidence)),
        subject=subject,
        predicate=predicate,
    )


def remember(
    backend: Backend,
    identity: Identity,
    proposal: Proposal,
    *,
    caps: CapsSettings,
    embedder: Callable[[], Embedder],
    row_policy: dict[str, Any] | None = None,
    sampler: Sampler | None = None,
    confirm: Callable[[str], bool | None] | None = None,
    rate_limited: bool = True,
) -> ToolOutput:
    """Decide one proposal; the answer's first line is the decision. `confirm(question)` asks the user
    whether a conflicting fact replaces the current value (True: yes; False or None: no answer).
    `rate_limited=False` (an operator's import, never a tool call) skips the per-caller rate cap."""
    proposal = check_proposal(proposal, caps, row_policy, identity)
    allowed = ((row_policy or {}).get("remember") or {}).get("scopes") or DEFAULT_ROW_SCOPES
    for _attempt in range(2):
        now = now_iso()
        with backend.session(identity, now=now) as s:
            policy = read_policy(s, now)
            plan = _plan(s, identity, proposal, policy, allowed, now, rate_limited)
        if isinstance(plan, ToolOutput):
            return plan
        verdicts = None
        if plan.conflict_with is not None and confirm is not None:
            current = plan.conflict_with["content"]
            plan.confirmed = (
                confirm(
                    f"Replace {proposal.subject} {proposal.predicate} = {current!r:.80} with {proposal.content!r:.80}?"
                )
                is True
            )
        if plan.duplicate_of is None and plan.conflict_with is None:
            verdicts = (
                Assessors(sampler)
                .pick(policy.assessor, policy.http_url, policy.http_timeout_s)
                .assess(
                    AssessmentRequest(
                        proposal.kind,
                        proposal.content,
                        proposal.scope,
                        tuple(e.text for e in plan.evidence),
                        proposal.subject,
                        proposal.predicate,
                    )
                )
            )
        decision, rule, sentence = _decide(proposal, plan, verdicts)
        try:
            return _commit(backend, identity, proposal, plan, decision, rule, sentence, verdicts, embedder)
        except _EvidenceChanged:
            continue
    assert isinstance(plan, _Plan)  # a refusal returned inside the loop
    return _commit(
        backend,
        identity,
        proposal,
        plan,
        "pending",
        "evidence_changed",
        "pending: an evidence record changed twice while the gate ran; an operator reviews it.",
        None,
        embedder,
        check=False,
    )


def _refused(rule: str, sentence: str) -> ToolOutput:
    return answer("refused", rule, sentence + " Nothing was written.")


def _plan(
    s: Session, identity: Identity, p: Proposal, policy: PromotionPolicy, allowed, now: str, rate_limited: bool = True
) -> _Plan | ToolOutput:
    since = (datetime.fromisoformat(now.replace("Z", "+00:00")) - timedelta(hours=1)).astimezone(UTC)
    made = rate_limited and s.fetch_one(
        "candidate_recent_count", created_by=_caller(identity), since=since.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    )
    if made and int(made["n"]) >= policy.rate_per_hour:
        return _refused("rate", f"refused: you proposed {policy.rate_per_hour} memories in the last hour, the cap.")
    if p.scope not in allowed:
        return _refused("scope", f"refused: this tool may remember in scope {', '.join(allowed)}, not {p.scope}.")
    denied = policy.denied(" ".join(x for x in (p.subject, p.predicate, p.content) if x))
    if denied:
        return _refused(f"deny:{denied}", f"refused: the tenant never records a {denied} (rule deny:{denied}).")
    if not p.evidence:
        return _refused("evidence", "refused: a memory rests on evidence: the ids of records you were given.")
    evidence, missing = given_evidence(s, identity, list(p.evidence), now)
    if missing is not None:
        return _refused("evidence", f"refused: {missing[:80]!r} is no record you were given.")
    columns = record_scope(identity, p.scope)
    for e in evidence:
        if wider_than(columns, e):
            return _refused("scope", f"refused: scope {p.scope} is wider than evidence {e.id}'s; remember it narrower.")
    plan = _Plan(evidence, columns, policy, refs=[e.ref() for e in evidence])
    if p.kind == "fact":
        assert p.subject is not None and p.predicate is not None  # check_proposal requires both for a fact
        claims, _ = entities.lookup(s, p.subject, p.predicate, now, 5)
        current = next((c.current.row for c in claims if c.current is not None), None)
        if current is not None and _normal(current["content"]) == _normal(p.content):
            plan.duplicate_of = {**current, "memory_type": "entity_memory"}
        elif current is not None:
            plan.conflict_with = current
        return plan
    for row in s.fetch_all("candidate_duplicate", content_hash=p.content_hash, kind=p.kind, scope=p.scope):
        found = [r for r in ends_by_id(s, [row["record_id"]]) if r["deleted_at"] is None and r["valid_until"] is None]
        if found:
            plan.duplicate_of = found[0]
            break
    return plan


def _decide(p: Proposal, plan: _Plan, verdicts: Verdicts | None) -> tuple[str, str, str]:
    if plan.duplicate_of is not None:
        return (
            "duplicate",
            "duplicate",
            f"duplicate: {plan.duplicate_of['id']} already holds this; nothing new was written.",
        )
    if plan.conflict_with is not None and plan.confirmed:
        value = plan.conflict_with["content"]
        return (
            "promoted",
            "conflict:confirmed",
            f"promoted: the user replaced {value!r:.80} with {p.content!r:.80} for {p.subject} {p.predicate}.",
        )
    if plan.conflict_with is not None:
        value = plan.conflict_with["content"]
        return (
            "pending",
            "conflict",
            f"pending: {p.subject} {p.predicate} is {value!r:.80} now (record {plan.conflict_with['id']}); "
            f"replacing it with {p.content!r:.80} waits for review, and lookup_entity still answers {value!r:.80}.",
        )
    assert verdicts is not None
    policy = plan.policy
    note = f" ({verdicts.note})" if verdicts.note else ""
    unanswered = [q for q in QUESTIONS if verdicts.probabilities.get(q) is None]
    failed = [q for q in QUESTIONS if not policy.passes(q, verdicts.probabilities.get(q))]
    if unanswered:
        rule, sentence = (
            "no_answer",
            f"pending: the {verdicts.assessor} assessor gave no answer{note}; an operator reviews it.",
        )
    elif failed:
        q = failed[0]
        rule = f"assessment:{q}"
        sentence = (
            f"pending: {q} = {verdicts.probabilities[q]:.2f} misses the threshold {policy.thresholds[q]:.2f}{note}; "
            "an operator reviews it."
        )
    else:
        rule, sentence = "passed", f"promoted: supported, in scope and without conflict{note}."
    if policy.mode == "shadow":
        return (
            "pending",
            f"shadow:{'promoted' if rule == 'passed' else rule}",
            (f"pending: shadow mode records the gate's decision ({rule}) and promotes nothing{note}."),
        )
    if rule == "passed" and policy.mode == "review":
        return (
            "pending",
            "review",
            f"pending: it passed the gate{note}; the tenant promotes only after an operator's review.",
        )
    return ("promoted" if rule == "passed" else "pending"), rule, sentence


def _caller(identity: Identity) -> str:
    return identity.principal or identity.user or "anonymous"


def _candidate_row(identity: Identity, p: Proposal, plan: _Plan, decision: str, rule: str, assessor, now: str) -> Row:
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
        "created_by": _caller(identity),
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
            "created_by": _caller(identity),
            "created_at": now,
        }


def _commit(
    backend: Backend,
    identity: Identity,
    p: Proposal,
    plan: _Plan,
    decision: str,
    rule: str,
    sentence: str,
    verdicts: Verdicts | None,
    embedder: Callable[[], Embedder],
    *,
    check: bool = True,
) -> ToolOutput:
    now = now_iso()
    candidate = _candidate_row(identity, p, plan, decision, rule, verdicts.assessor if verdicts else None, now)
    if plan.duplicate_of is not None:
        candidate["record_type"] = plan.duplicate_of["memory_type"]
        candidate["record_id"] = plan.duplicate_of["id"]

    def write(s: Session, record: tuple[str, str] | None = None) -> None:
        if check and not still_current(s, plan.refs, now):
            raise _EvidenceChanged
        if record is not None:
            candidate["record_type"], candidate["record_id"] = record
        s.insert("memory_candidate", candidate)
        if verdicts is not None:
            s.insert_many("memory_assessment", list(assessment_rows(identity, candidate, plan.policy, verdicts, now)))
        if record is not None:
            records.write_supports(s, identity, plan.evidence, records.link_end(*record, plan.scope_columns), now)
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
            lambda: backend.session(identity, now=now),
            identity,
            embedder(),
            now,
            title=records.note_title(p.kind, p.content),
            text=records.note_text(p.content, [e.id for e in plan.evidence]),
            source_uri=f"memory://{candidate['id']}",
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
                    raise _EvidenceChanged
                assert p.subject is not None and p.predicate is not None  # a promoted fact: both required
                row = records.write_fact(
                    s,
                    identity,
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
                        identity,
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
