"""The memory view (ui://memgate/memory) and a host's review of a candidate.

The view shows what the caller's wall shows: its memories by type (claims, every version with
its status, and the remembered notes, preferences and procedures), each with the scope it is
visible in, and its own candidates with the gate's decisions, each with what a reviewer decides
from: the assessments (probability, threshold, pass) and the evidence it rests on (an excerpt, the
id, the scope it is visible in), read through the same wall. `memgate ui` shows the operator the
tenant's memories and candidates of every scope (`operator_memory_view`), each candidate's
assessments and evidence read as its proposer's wall shows them. Reviewing from a host
acts only on a candidate the caller's wall shows, bound to the version the page showed; the
decision is review.py's (the gate's transaction, the version read again inside it), so a host's
approve writes exactly what `memgate candidates approve` would. Who may call the review tool at
all is its toolbox row's access policy (a required scope, docs/memory.md).
"""

from __future__ import annotations

import json
from typing import Any

from ..backend.base import Row, Session
from ..clock import now_iso
from ..errors import InvalidArgument, NotVisible
from ..identity import Identity
from ..links.store import ends_by_id
from ..output.records import metadata_line
from ..output.results import ToolOutput
from ..tokens import count_tokens
from . import review
from .commit import caller
from .records import COLLECTION

__all__ = [
    "DECISIONS",
    "CandidateNotVisible",
    "decide",
    "decision_output",
    "memory_view",
    "operator_memory_view",
    "view_data",
]

#: what a reviewer may decide
DECISIONS = ("approve", "reject")
#: the kinds a remembered document holds (its title starts "kind: ", records.note_title), in the view's order
NOTE_KINDS = ("note", "preference", "procedure")
#: the order the view lists memory types in
TYPE_ORDER = ("fact", *NOTE_KINDS)
#: characters of an evidence row's text the view shows
EXCERPT_CHARS = 240


class CandidateNotVisible(NotVisible):
    """A candidate id the caller's wall does not show: absent or another user's, not told apart."""


def memory_view(session: Session, now: str, *, limit: int, review_tool: str | None) -> ToolOutput:
    claims, more_claims = session.fetch_page("view_claims", limit)
    notes, more_notes = session.fetch_page("view_notes", limit, collection=COLLECTION)
    candidates, more_candidates = session.fetch_page("candidate_list", limit, id=None)
    details = candidate_details(session, candidates)
    data = view_data(claims, notes, candidates, now, review_tool=review_tool, details=details)
    data["more"] = more_claims or more_notes or more_candidates
    return _output(data)


def operator_memory_view(manager: Any, tenant: str, *, limit: int, review_tool: str | None) -> ToolOutput:
    """The view for the operator (`memgate ui`): the tenant's memories and candidates of every scope;
    each candidate's assessments and evidence as its proposer's wall shows them."""
    with manager.backend.operator_session() as s:
        claims, more_claims = s.fetch_page("operator_view_claims", limit, tenant=tenant)
        notes, more_notes = s.fetch_page("operator_view_notes", limit, tenant=tenant, collection=COLLECTION)
        candidates, more_candidates = s.fetch_page(
            "operator_candidate_list", limit, tenant=tenant, decision=None, reassess=None
        )
    details: dict[str, dict[str, Any]] = {}
    owners: dict[tuple[str | None, str | None, str | None], list[Row]] = {}
    for c in candidates:
        owners.setdefault((c["user_id"], c["agent_id"], c["thread_id"]), []).append(c)
    for (user, agent, thread), rows in owners.items():
        owner = Identity(tenant=tenant, user=user, agent=agent, thread=thread, principal=review.OPERATOR)
        with manager.backend.session(owner) as s:
            details.update(candidate_details(s, rows))
    data = view_data(claims, notes, candidates, now_iso(), review_tool=review_tool, details=details)
    data["more"] = more_claims or more_notes or more_candidates
    return _output(data)


def _output(data: dict[str, Any]) -> ToolOutput:
    text = describe(data)
    return ToolOutput(
        text=text,
        rows=len(data["memories"]) + len(data["candidates"]),
        truncated=data["more"],
        tokens=count_tokens(text),
        cited_ids=tuple(m["id"] for m in data["memories"]),
        structured=data,
    )


def candidate_details(session: Session, candidates: list[Row]) -> dict[str, dict[str, Any]]:
    """Per candidate id, what a reviewer decides from, as `session`'s wall shows it: the assessments
    (question, probability, threshold, pass) and the evidence rows it rests on, each with an excerpt,
    the version it rests on, whether that is still the version there, and the scope it is visible in.
    An evidence row the wall no longer shows (erased, or never this reader's) is listed without text."""
    if not candidates:
        return {}
    ids = [c["id"] for c in candidates]
    assessments: dict[str, list[dict[str, Any]]] = {}
    for a in session.fetch_all("view_assessments", ids=json.dumps(ids)):
        assessments.setdefault(a["candidate_id"], []).append(
            {
                "question": a["question"],
                "probability": None if a["probability"] is None else float(a["probability"]),
                "threshold": float(a["threshold"]),
                "passed": bool(a["passed"]),
                "assessor": a["assessor"],
                "note": a["note"],
            }
        )
    refs = {c["id"]: json.loads(c["evidence_json"] or "[]") for c in candidates}
    rows = {(r["memory_type"], r["id"]): r for r in ends_by_id(session, [e["id"] for es in refs.values() for e in es])}
    details = {}
    for cid in ids:
        evidence = []
        for ref in refs[cid]:
            row = rows.get((ref.get("type"), ref["id"]))
            evidence.append(_evidence(ref, row))
        details[cid] = {"assessments": assessments.get(cid, []), "evidence": evidence}
    return details


def _evidence(ref: dict[str, Any], row: Row | None) -> dict[str, Any]:
    shown: dict[str, Any] = {"id": ref["id"], "type": ref.get("type"), "version": ref.get("version")}
    if row is None:
        return {**shown, "excerpt": None, "visibility": None, "same_version": False}
    label, content = row.get("label") or "", row.get("content") or ""
    text = " ".join((f"{label}: {content}" if label and content and label != content else content or label).split())
    return {
        **shown,
        "excerpt": text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…",
        "visibility": visibility(row),
        "same_version": int(row["version"] or 1) == ref.get("version"),
    }


def visibility(row: Row) -> str:
    """Who may see a row, from its scope columns: 'tenant', or e.g. 'user jane, thread helios-review'."""
    parts = [f"{name} {row[f'{name}_id']}" for name in ("user", "agent", "thread") if row.get(f"{name}_id")]
    return ", ".join(parts) or "tenant"


def _note_kind(title: str | None) -> str:
    kind = (title or "").split(":", 1)[0]
    return kind if kind in NOTE_KINDS else "note"


def view_data(
    claims: list[Row],
    notes: list[Row],
    candidates: list[Row],
    now: str,
    *,
    review_tool: str | None,
    details: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    newest: dict[tuple[str, str], int] = {}
    for c in claims:
        key = (c["subject"], c["predicate"])
        newest[key] = max(newest.get(key, 0), int(c["version"]))
    memories = [
        {
            "id": c["id"],
            "type": "fact",
            "title": f"{c['subject']} {c['predicate']} = {c['content']}",
            "version": int(c["version"]),
            "status": _status(c, now, newer=int(c["version"]) < newest[(c["subject"], c["predicate"])]),
            "visibility": visibility(c),
        }
        for c in claims
    ] + [
        {
            "id": n["id"],
            "type": _note_kind(n["title"]),
            "title": n["title"],
            "version": int(n["version"]),
            "status": _status(n, now, newer=False),
            "visibility": visibility(n),
        }
        for n in notes
    ]
    memories.sort(key=lambda m: TYPE_ORDER.index(m["type"]))  # stable: newest first within a type
    details = details or {}
    return {
        "view": "memory",
        "memories": memories,
        "types": {t: sum(1 for m in memories if m["type"] == t) for t in TYPE_ORDER},
        "candidates": [
            {**review.candidate_json(c), **details.get(c["id"], {"assessments": [], "evidence": []})}
            for c in candidates
        ],
        "review_tool": review_tool,
        "more": False,
    }


def _status(row: Row, now: str, *, newer: bool) -> str:
    if row["deleted_at"] is not None and row["deleted_at"] <= now:
        return "deleted"
    if row["valid_from"] > now:
        return "pending"
    if row["valid_until"] is not None and row["valid_until"] <= now:
        return "superseded" if newer else "expired"
    return "current"


def describe(data: dict[str, Any]) -> str:
    """The compact text a host without MCP Apps shows."""
    pending = [c for c in data["candidates"] if c["decision"] == "pending"]
    lines = [
        metadata_line(
            memories=len(data["memories"]),
            candidates=len(data["candidates"]),
            pending=len(pending),
            more="yes" if data["more"] else None,
        )
    ]
    lines += [f"{m['id']} {m['type']} v{m['version']} {m['status']}: {m['title'][:80]}" for m in data["memories"]]
    for c in data["candidates"]:
        line = f"{c['id']} v{c['version']} {c['kind']} {c['decision']} ({c['rule']}): {' '.join(c['content'].split())[:80]}"
        if c["decision"] == "pending":  # what a reviewer decides from, in a few words
            scores = "; ".join(_score(a) for a in c.get("assessments", ()))
            line += f" | {scores or 'no assessment'} | evidence: {', '.join(e['id'] for e in c.get('evidence', ()))}"
        lines.append(line)
    return "\n".join(lines)


def _score(a: dict[str, Any]) -> str:
    p = "no answer" if a["probability"] is None else f"{a['probability']:.2f}"
    return f"{a['question']} {p} vs {a['threshold']:.2f} {'pass' if a['passed'] else 'fail'}"


def decide(manager: Any, identity: Identity, candidate_id: str, version: int, decision: str) -> Row:
    """A host's review: approve or reject a candidate the caller's wall shows, at `version`; a candidate the
    caller itself proposed may be rejected (withdrawn), never approved."""
    if decision not in DECISIONS:
        raise InvalidArgument(f"decision must be one of {list(DECISIONS)}", field="decision")
    with manager.backend.session(identity) as s:
        row = s.fetch_one("candidate_list", id=candidate_id)
    if row is None:
        raise CandidateNotVisible(f"{candidate_id!r} is no candidate of this caller; nothing was written")
    reviewer = caller(identity)
    operator = f"host:{reviewer}"
    row = {**row, "tenant_id": identity.tenant}
    if decision == "approve":  # never the proposer's own: checked again inside the deciding transaction
        return review.approve_row(manager, identity.tenant, row, operator=operator, version=version, reviewer=reviewer)
    return review.reject_row(manager, identity.tenant, row, operator=operator, version=version)


def decision_output(row: Row) -> ToolOutput:
    text = f"candidate {row['id']} {row['decision']} ({row['rule']}) at version {row['version']}" + (
        f"; record {row['record_id']}" if row.get("record_id") else ""
    )
    return ToolOutput(
        text=text,
        rows=1,
        tokens=count_tokens(text),
        cited_ids=(row["id"],),
        structured={
            "view": "decision",
            "candidate_id": row["id"],
            "decision": row["decision"],
            "rule": row["rule"],
            "version": int(row["version"]),
            "record_id": row.get("record_id"),
        },
    )
