"""The promotion gate: one proposal, code checks first, typed assessments second, one transaction.

Order (the article on governing agent memory with typed assessments): the checks that cost
nothing run first and spend no assessment, and none of them ever promotes.

Refused, nothing written (the call log keeps the call): a secret (screen.py: detect-secrets), text
addressed to a model or an agent, small talk, a deny pattern (named), a rate past the cap (said as
such: nothing was decided), a scope the toolbox row does not allow or one wider than the evidence's,
evidence that is no record the caller was given (absent, another user's or tenant's and never-shown
are one answer), and evidence whose instruction-like passage the proposal rests on.

Then, reading the caller's memory: a proposal that restates a record is `duplicate`, naming it, and
one that restates the caller's own pending candidate attaches to it (duplicates.py); a fact whose
subject and predicate have another current value is `pending` with rule `conflict`, naming that
value, and `contradicts` it. Only then the assessor answers the three questions, behind support.py's
strict checks (assess.Checked); the tenant's thresholds decide. The candidate, its assessments,
the record and its `supports` links commit together, after a version check (commit.py): an evidence
row that changed while the gate ran sends the proposal through the gate again (once; a second change
leaves it pending).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from ..backend.base import Backend, Session
from ..claims import entities
from ..clock import now_iso
from ..errors import InvalidArgument
from ..identity import Identity
from ..kb.embed import Embedder
from ..limits import CapsSettings
from ..output.results import ToolOutput
from . import duplicates, screen
from .assess import QUESTIONS, AssessmentRequest, Sampler, Verdicts
from .assess_http import Assessors
from .commit import EvidenceChanged, Plan, attach, caller, commit
from .evidence import Evidence, given_evidence, own_turns, record_scope, told_by_user, wider_than
from .policy import PromotionPolicy, read_policy
from .render import answer
from .support import Source
from .text import content_lemmas

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


def _normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def check_proposal(
    proposal: Proposal, caps: CapsSettings, row_policy: dict[str, Any] | None, identity: Identity
) -> Proposal:
    """Bad input is one clear InvalidArgument and nothing else happens."""
    for name in ("content", "subject", "predicate"):
        value = getattr(proposal, name)
        if isinstance(value, str) and "\x00" in value:
            raise InvalidArgument(
                f"{name} contains a NUL character (\\0), which no memory may hold; remove it", field=name
            )
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
    if len(evidence) > MAX_EVIDENCE or not all(
        isinstance(e, str) and 0 < len(e) <= 200 and "\x00" not in e for e in evidence
    ):
        raise InvalidArgument(f"evidence must be at most {MAX_EVIDENCE} record ids", field="evidence")
    needs = {"user": identity.user, "agent": identity.agent, "thread": identity.thread}.get(scope, "tenant")
    if not needs:
        article = "an" if scope == "agent" else "a"
        raise InvalidArgument(f"scope {scope} needs a caller with {article} {scope}; this one has none", field="scope")
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
    imported: bool = False,
) -> ToolOutput:
    """Decide one proposal; the answer's first line is the decision. `confirm(question)` asks the user
    whether a conflicting fact replaces the current value (True: yes; False or None: no answer).
    `imported` (an operator's import from another tool, never a tool call) skips the per-caller rate cap,
    and its evidence is the imported file (duplicates.SOURCE_COLLECTIONS): a proposal restating the line it
    was imported from is not a duplicate of it."""
    proposal = check_proposal(proposal, caps, row_policy, identity)
    refused = _screen(proposal, identity)
    if refused is not None:
        return refused
    allowed = ((row_policy or {}).get("remember") or {}).get("scopes") or DEFAULT_ROW_SCOPES
    for _attempt in range(2):
        now = now_iso()
        with backend.session(identity, now=now) as s:
            policy = read_policy(s, now)
            plan = _plan(s, identity, proposal, policy, allowed, now, embedder, imported)
        if isinstance(plan, ToolOutput):
            return plan
        if plan.attach_to is not None:
            return attach(backend, identity, plan)
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
                Assessors(sampler, embedder).pick(policy).assess(_request(proposal, plan, identity, plan.sources))
            )
        decision, rule, sentence = _decide(proposal, plan, verdicts)
        try:
            return commit(backend, identity, proposal, plan, decision, rule, sentence, verdicts, embedder)
        except EvidenceChanged:
            continue
    assert isinstance(plan, Plan)  # a refusal returned inside the loop
    return commit(
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


def _request(p: Proposal, plan: Plan, identity: Identity, sources: list[Source]) -> AssessmentRequest:
    return AssessmentRequest(
        p.kind,
        p.content,
        p.scope,
        tuple(x.text for x in sources),
        p.subject,
        p.predicate,
        titles=tuple(x.title for x in sources),
        user_turns=tuple(x.user_turn for x in sources),
        user=identity.user,
    )


def _refused(rule: str, sentence: str) -> ToolOutput:
    return answer("refused", rule, sentence + " Nothing was written.")


def _screen(p: Proposal, identity: Identity) -> ToolOutput | None:
    """The checks on the proposal's own text: a secret, text addressed to a model, small talk."""
    fact_line = f"{p.predicate} is {p.content}" if p.kind == "fact" else None
    found = screen.secret(p.subject, p.predicate, p.content, fact_line)
    if found:
        return _refused("secret", f"refused: it holds a secret ({found}); memory never keeps credentials.")
    for text in (p.content, p.subject, p.predicate):
        kind = screen.injection(text)
        if kind:
            return _refused(
                "injection",
                f"refused: it is addressed to a model or an agent ({kind.replace('_', ' ')}), not a claim to keep.",
            )
    if p.kind != "fact" and screen.small_talk(p.content, identity.user):
        return _refused("no_claim", "refused: it claims nothing that would help a later conversation.")
    return None


def _plan(
    s: Session,
    identity: Identity,
    p: Proposal,
    policy: PromotionPolicy,
    allowed,
    now: str,
    embedder: Callable[[], Embedder],
    imported: bool = False,
) -> Plan | ToolOutput:
    since = (datetime.fromisoformat(now.replace("Z", "+00:00")) - timedelta(hours=1)).astimezone(UTC)
    made = not imported and s.fetch_one(
        "candidate_recent_count", created_by=caller(identity), since=since.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    )
    if made and int(made["n"]) >= policy.rate_per_hour:
        return _refused(
            "rate",
            f"refused by the rate cap, not judged: you made {policy.rate_per_hour} proposals the gate decided in the "
            "last hour, the most this tenant allows (rate_per_hour); propose it again later.",
        )
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
    sources = _sources(s, identity, p, evidence)
    if isinstance(sources, ToolOutput):
        return sources
    own = own_turns(s, identity, [e.row for e in evidence])
    refs = [e.ref(identity.thread if e.id in own else None) for e in evidence]
    plan = Plan(evidence, columns, policy, refs=refs)
    plan.sources = sources
    found = duplicates.find(s, p, evidence, sources, now, embedder, identity.user, imported=imported)
    if found is not None and found.pending:
        plan.attach_to = found.row
        return plan
    if found is not None:
        plan.duplicate_of = found.row
        return plan
    if p.kind == "fact":
        assert p.subject is not None and p.predicate is not None  # check_proposal requires both for a fact
        claims, _ = entities.lookup(s, p.subject, p.predicate, now, 5)
        current = next((c.current.row for c in claims if c.current is not None), None)
        if current is not None and _normal(current["content"]) != _normal(p.content):
            plan.conflict_with = current
    return plan


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _sources(s: Session, identity: Identity, p: Proposal, evidence: list[Evidence]) -> list[Source] | ToolOutput:
    """The evidence as the checks read it, without instruction-like passages; a proposal that rests on one
    (a turn of it at all, or a passage closer to it than the rest of its record) is refused."""
    told = told_by_user(s, identity, evidence)
    claim = content_lemmas(p.content) | content_lemmas(f"{p.subject or ''} {p.predicate or ''}")
    sources = []
    for e, user_turn in zip(evidence, told, strict=True):
        parts = [x for x in _SENTENCE.split(e.text) if x.strip()]
        flagged = [x for x in parts if screen.injection(x)]
        if flagged:
            rest = [x for x in parts if x not in flagged]
            near_flagged = len(claim & content_lemmas(" ".join(flagged)))
            near_rest = len(claim & content_lemmas(" ".join(rest)))
            if e.type == "conversation_memory" or not rest or near_flagged >= near_rest:
                return _refused(
                    "injection",
                    f"refused: evidence {e.id} is text addressed to a model or an agent, not a record of fact.",
                )
        sources.append(Source("\n".join(x for x in parts if x not in flagged), e.title, user_turn))
    return sources


def _decide(p: Proposal, plan: Plan, verdicts: Verdicts | None) -> tuple[str, str, str]:
    if plan.duplicate_of is not None:
        return (
            "duplicate",
            "duplicate",
            f"duplicate: {plan.duplicate_of['id']} already says this; nothing new was written.",
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
