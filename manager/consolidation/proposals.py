"""Proposed merges, for review (merge_candidate, an operator table), and carrying out approved ones.

A proposal names the link it would write (from `relation` to), the end it would end (`retire_id`),
the versions read and why; no content. A review approves or rejects it (`memgate consolidate
approve|reject`). Carrying out an approved merge (`memgate consolidate --apply`) acts in the
records' own scope through the wall: both ends are read again and must still be current at the
versions read (else the merge is `gone` and nothing is written); then, in one transaction, the
link is written (provenance `extraction`, the reason as its note) and the retired record's
lifecycle ends (valid_until; a note's document with its chunks, a claim's version closed). Nothing
is deleted: an ended record stays as history, and its link says what replaced it.
"""

from __future__ import annotations

from typing import Any

from ..backend.base import Backend, Row
from ..backend.portable_rows import PortableRows
from ..backend.retention_store import RetentionStore
from ..clock import now_iso
from ..errors import InvalidArgument, NotFound
from ..ids import new_id
from ..links.store import link_between
from ..portability.scopes import Triple, identity_for
from .detect import Claim, Match

__all__ = ["DECISIONS", "apply_approved", "decide", "decide_merge", "listing", "merges", "propose"]

DECISIONS = ("proposed", "approved", "rejected", "applied", "gone")


def _end(match_end: Any) -> tuple[str, str, int]:
    kind = "entity_memory" if isinstance(match_end, Claim) else match_end.type
    return kind, match_end.id, match_end.version


def propose(store: RetentionStore, triple: Triple, match: Match, principal: str, now: str) -> bool:
    """Record `match` for review unless it was proposed before (whatever its decision); True when new."""
    from_type, from_id, from_version = _end(match.source)
    to_type, to_id, to_version = _end(match.target)
    if store.session.fetch_one(
        "consolidation_pair", tenant=store.tenant, relation=match.relation, from_id=from_id, to_id=to_id
    ):
        return False
    user, agent, thread = triple
    with store.transaction():
        store.session.execute(
            "consolidation_propose",
            merge=new_id("mrg"),
            tenant=store.tenant,
            user_id=user,
            agent_id=agent,
            thread_id=thread,
            reason=match.reason,
            relation=match.relation,
            from_type=from_type,
            from_id=from_id,
            from_version=from_version,
            to_type=to_type,
            to_id=to_id,
            to_version=to_version,
            retire_id=match.retire.id,
            score=match.score,
            detail=match.detail[:1000],
            created_by=principal,
            now=now,
        )
    return True


def listing(store: RetentionStore, decision: str | None = None) -> list[Row]:
    if decision is not None and decision not in DECISIONS:
        raise InvalidArgument(f"decision must be one of {', '.join(DECISIONS)}, got {decision!r}", field="decision")
    return store.session.fetch_all("consolidation_list", tenant=store.tenant, decision=decision)


def decide(store: RetentionStore, merge_id: str, decision: str, who: str, now: str) -> Row:
    """Approve or reject a proposed merge (a review's decision); the row as decided."""
    if decision not in ("approved", "rejected"):
        raise InvalidArgument("a review approves or rejects", field="decision")
    row = next((r for r in listing(store) if r["merge_id"] == merge_id), None)
    tenant = store.tenant
    if row is None:
        raise NotFound(
            f"tenant {tenant} has no proposed merge {merge_id}",
            hint=f"List them with `memgate consolidate ls -t {tenant}`.",
        )
    if row["decision"] != "proposed":
        raise InvalidArgument(f"merge {merge_id} is {row['decision']}, not proposed; nothing changed", field="merge")
    with store.transaction():
        store.session.execute(
            "consolidation_decide",
            tenant=store.tenant,
            merge=merge_id,
            decision=decision,
            was="proposed",
            decided_by=who,
            now=now,
        )
    return {**row, "decision": decision, "decided_by": who, "decided_at": now}


def merges(backend: Backend, tenant: str, decision: str | None = None) -> list[Row]:
    """The tenant's proposed merges (of one decision, or all), oldest first."""
    with backend.retention_store(tenant) as store:
        return listing(store, decision)


def decide_merge(backend: Backend, tenant: str, merge_id: str, decision: str, who: str) -> Row:
    """A review's decision on one proposed merge: approved or rejected."""
    with backend.retention_store(tenant) as store:
        return decide(store, merge_id, decision, who, now_iso())


def apply_approved(
    backend: Backend, store: RetentionStore, triples: set[Triple] | None, principal: str, now: str
) -> dict[str, int]:
    """Carry out the approved merges (of the given scopes, or all); counts of applied and gone."""
    done = {"applied": 0, "gone": 0}
    for row in listing(store, "approved"):
        triple = (row["user_id"], row["agent_id"], row["thread_id"])
        if triples is not None and triple not in triples:
            continue
        outcome = _carry_out(backend, store.tenant, triple, row, principal, now)
        with store.transaction():
            store.session.execute(
                "consolidation_decide",
                tenant=store.tenant,
                merge=row["merge_id"],
                decision=outcome,
                was="approved",
                decided_by=principal,
                now=now,
            )
        done[outcome] += 1
    return done


def _carry_out(backend: Backend, tenant: str, triple: Triple, merge: Row, principal: str, now: str) -> str:
    identity = identity_for(tenant, triple, principal)
    with backend.session(identity, now=now) as s:
        rows = PortableRows(s, backend.portable_sql)
        ends = {}
        for side in ("from", "to"):
            found = rows.by_keys(merge[f"{side}_type"], "id", [merge[f"{side}_id"]])
            row = found[0] if found else None
            if (
                row is None
                or int(row["version"] or 1) != int(merge[f"{side}_version"])
                or row["deleted_at"] is not None
                or (row["valid_until"] is not None and row["valid_until"] <= now)
            ):
                return "gone"
            ends[side] = row
        retire_side = "from" if merge["retire_id"] == merge["from_id"] else "to"
        retire_type = merge[f"{retire_side}_type"]
        with s.transaction():
            link_between(
                s,
                identity,
                merge["from_id"],
                merge["relation"],
                merge["to_id"],
                now=now,
                from_type=merge["from_type"],
                to_type=merge["to_type"],
                provenance="extraction",
                note=f"memgate consolidate ({merge['reason']}): {merge['detail'] or ''}"[:1000],
            )
            if retire_type == "entity_memory":
                s.execute("entity_close_version", id=merge["retire_id"], now=now)
            elif retire_type == "knowledge_base_document":
                s.execute("kb_document_end", id=merge["retire_id"], now=now)
                s.execute("kb_chunks_end_for_document", document_id=merge["retire_id"], now=now)
            else:
                rows.update(retire_type, "id", merge["retire_id"], {"valid_until": now})
    return "applied"
