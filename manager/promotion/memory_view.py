"""The memory view (ui://memgate/memory) and a host's review of a candidate.

The view shows what the caller's wall shows: its claims (every version, with status) and its
remembered notes by type, and its own candidates with the gate's decisions. Reviewing from a host
acts only on a candidate the caller's wall shows, bound to the version the page showed; the
decision is review.py's (the gate's transaction, the version read again inside it), so a host's
approve writes exactly what `memgate candidates approve` would. Who may call the review tool at
all is its toolbox row's access policy (a required scope, docs/memory.md).
"""

from __future__ import annotations

from typing import Any

from ..backend.base import Row, Session
from ..errors import InvalidArgument, NotVisible
from ..identity import Identity
from ..output.records import metadata_line
from ..output.results import ToolOutput
from ..tokens import count_tokens
from . import review
from .commit import caller
from .records import COLLECTION

__all__ = ["DECISIONS", "CandidateNotVisible", "decide", "decision_output", "memory_view", "view_data"]

#: what a reviewer may decide
DECISIONS = ("approve", "reject")


class CandidateNotVisible(NotVisible):
    """A candidate id the caller's wall does not show: absent or another user's, not told apart."""


def memory_view(session: Session, now: str, *, limit: int, review_tool: str | None) -> ToolOutput:
    claims, more_claims = session.fetch_page("view_claims", limit)
    notes, more_notes = session.fetch_page("view_notes", limit, collection=COLLECTION)
    candidates, more_candidates = session.fetch_page("candidate_list", limit, id=None)
    data = view_data(claims, notes, candidates, now, review_tool=review_tool)
    data["more"] = more_claims or more_notes or more_candidates
    text = describe(data)
    return ToolOutput(
        text=text,
        rows=len(data["memories"]) + len(data["candidates"]),
        truncated=data["more"],
        tokens=count_tokens(text),
        cited_ids=tuple(m["id"] for m in data["memories"]),
        structured=data,
    )


def view_data(
    claims: list[Row], notes: list[Row], candidates: list[Row], now: str, *, review_tool: str | None
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
        }
        for c in claims
    ] + [
        {
            "id": n["id"],
            "type": "note",
            "title": n["title"],
            "version": int(n["version"]),
            "status": _status(n, now, newer=False),
        }
        for n in notes
    ]
    return {
        "view": "memory",
        "memories": memories,
        "candidates": [review.candidate_json(c) for c in candidates],
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
    lines += [
        f"{c['id']} v{c['version']} {c['kind']} {c['decision']} ({c['rule']}): {' '.join(c['content'].split())[:80]}"
        for c in data["candidates"]
    ]
    return "\n".join(lines)


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
