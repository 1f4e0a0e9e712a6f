"""One window, start to end, at one evaluation time: gather, select, fit, render, record.

Everything is read in one session bound to the caller's wall and to `now` (app_now()),
and the manifest is written in the same session, so the window, its manifest and its
change marker describe one moment of the database.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..backend.base import Row, Session
from ..claims import guidelines
from ..conversations.ranking import RANKER, Ranker
from ..identity import Identity
from ..ids import new_id
from ..kb.embed import Embedder
from ..limits import ContextBudget
from ..registry import toolbox as toolbox_rows
from ..tokens import count_tokens
from . import manifest as manifests
from .budget import charge_fixed, grant
from .candidates import Candidate, gather
from .layout import FULL, GUIDELINES, PERSONA, QUESTION, TOOL_SURFACE, VARIABLE, VOLATILE_TAIL
from .linked import linked_history
from .render import RENDERER_VERSION, cost, header, question_block, record, slice_block, window_text
from .rerank import Reranker, RetrievalScore
from .selection import BUDGET, SELECTION_VERSION, Exclusion, exclusion, order_key, select
from .tiers import Placed, SliceFitter

__all__ = ["BudgetRef", "ContextWindow", "assemble", "fixed_records"]


@dataclass(frozen=True)
class BudgetRef:
    table: str
    row_id: str
    version: int

    def as_json(self) -> dict[str, Any]:
        return {"type": self.table, "row_id": self.row_id, "version": self.version}


@dataclass(frozen=True)
class ContextWindow:
    manifest_id: str
    text: str
    tokens: int
    manifest: dict[str, Any]


def budget_of(session: Session, now: str) -> tuple[ContextBudget, BudgetRef | None]:
    row = guidelines.current_guidelines(session, now, guidelines.BUDGET_KEY).get(guidelines.BUDGET_KEY)
    ref = BudgetRef("guideline_memory", row["row_id"], row["version"]) if row else None
    return ContextBudget.from_guideline(guidelines.guideline_json(row)), ref


def fixed_records(kind: str, rows: list[Row]) -> list[str]:
    """The records of a fixed slice; tools are shown by name, the row id stays in the manifest."""
    shown = (lambda r: r["tool_name"]) if kind == "tool" else (lambda r: None)
    return [record(kind, r, tier=FULL, status="current", shown_id=shown(r)) for r in rows]


def assemble(
    session: Session,
    identity: Identity,
    question: str,
    intent: str,
    now: str,
    *,
    embedder: Embedder,
    reranker: Reranker | None = None,
    ranker: Ranker | None = None,
) -> ContextWindow:
    reranker = reranker or RetrievalScore()
    ranker = ranker or RANKER
    budget, budget_ref = budget_of(session, now)
    budget.shares_for(intent)  # an unknown intent fails before anything else is read
    fixed_rows = {
        GUIDELINES: (
            "guideline",
            sorted(guidelines.current_guidelines(session, now).values(), key=lambda r: (r["guideline_key"], r["id"])),
        ),
        PERSONA: (
            "persona",
            sorted(guidelines.current_personas(session, now).values(), key=lambda r: (r["persona_key"], r["id"])),
        ),
        TOOL_SURFACE: ("tool", sorted(toolbox_rows.model_tool_rows(session, now), key=lambda r: r["tool_name"])),
    }
    head = header(intent, now, budget.available)
    blocks = {name: fixed_records(kind, rows) for name, (kind, rows) in fixed_rows.items()}
    fixed = {name: cost(slice_block(name, recs)) if recs else 0 for name, recs in blocks.items()}
    fixed[QUESTION] = cost(head) + cost(question_block(question))
    plan = charge_fixed(budget, intent, fixed, identity.tenant)

    candidates = gather(session, embedder, question, now, identity, ranker, relevance_floor=budget.relevance_floor)
    admitted, excluded = select(candidates, question=question, now=now, budget=budget, reranker=reranker)
    admitted = _require_current_facts(session, admitted, now, budget, reranker, question)
    if budget.links_history(intent):  # opt-in per intent: otherwise an ended version stays a lifecycle exclusion
        admitted, excluded = linked_history(session, admitted, excluded, now)
    by_slice: dict[str, list[Candidate]] = {name: [] for name in VARIABLE}
    for c in admitted:
        by_slice[c.slice].append(c)
    by_slice[VOLATILE_TAIL].sort(key=lambda c: (-(c.row.get("turn_index") or 0), c.id))  # newest first
    fitter = SliceFitter(by_slice, budget=budget, tenant=identity.tenant)
    grant(plan, fitter.fill)
    fitter.require_whole()
    placed: dict[str, list[Placed]] = {}
    for name in VARIABLE:
        fitted = fitter.fitted[name]
        placed[name] = fitted.placed
        excluded += [exclusion(c, BUDGET, f"no room: a pointer needs {need} tokens") for c, need in fitted.dropped]
    placed[VOLATILE_TAIL] = sorted(placed[VOLATILE_TAIL], key=lambda p: p.candidate.row.get("turn_index") or 0)
    for name in VARIABLE:
        blocks[name] = [p.record for p in placed[name]]

    manifest_id = new_id("ctx")
    text = window_text(head, blocks, question)
    request = manifests.request_of(identity, question, intent)
    window_tokens = count_tokens(text)
    memories = [_fixed_entry(name, kind, r) for name, (kind, rows) in fixed_rows.items() for r in rows]
    memories += [_placed_entry(name, p) for name in VARIABLE for p in placed[name]]
    read = sorted(
        {tuple(m["ref"].values()) for m in memories}
        | {e.ref for e in excluded}
        | ({("guideline_memory", budget_ref.row_id, budget_ref.version)} if budget_ref else set())
    )
    data = {
        "manifest_id": manifest_id,
        "evaluated_at": now,
        "intent": intent,
        "change_marker": {
            **session.change_marker(),
            "versions": [list(v) for v in read],
            "sha256": manifests.sha256(manifests.canonical(read)),
        },
        "renderer_version": RENDERER_VERSION,
        "selection_version": f"{SELECTION_VERSION}/{reranker.name}",
        "recall_ranker": ranker.name,
        "budget_ref": budget_ref.as_json() if budget_ref else None,
        "budget": budget.to_json(),
        "arithmetic": plan.as_json(),
        "request": request,
        "request_hash": manifests.sha256(manifests.canonical(request)),
        "window_hash": manifests.sha256(text),
        "window_tokens": window_tokens,
        "memories": memories,
        "exclusions": [e.as_json() for e in _ordered(excluded)],
        "limits": {
            "max_rounds": budget.max_rounds,
            "tool_reserve": budget.tool_reserve,
            "max_tool_result_tokens": budget.max_tool_result_tokens,
            "spent_rounds": budget.spent_rounds or "answer",
        },
    }
    with session.transaction():
        manifests.write(session, identity, data, text, window_tokens)
    return ContextWindow(manifest_id, text, window_tokens, data)


def _require_current_facts(
    session: Session, admitted: list[Candidate], now: str, budget: ContextBudget, reranker: Reranker, question: str
) -> list[Candidate]:
    """Mark (or load) the current fact each historical memory needs at full size in durable_facts."""
    needed = {n.current_fact_id for c in admitted for n in c.stale if n.current_fact_id}
    have = {c.id: c for c in admitted if c.kind == "entity"}
    missing = sorted(needed - set(have))
    if missing:
        rows = session.fetch_all("context_rows_entity_memory", ids=json.dumps(missing))
        extra = [Candidate("entity", "durable_facts", r) for r in rows]
        live, _ = select(extra, question=question, now=now, budget=budget, reranker=reranker)
        admitted = sorted(admitted + live, key=order_key)
        have.update({c.id: c for c in live})
    for fact_id in needed:
        if fact_id in have:
            have[fact_id].required = True
    return admitted


def _fixed_entry(slice_name: str, kind: str, row: Row) -> dict[str, Any]:
    text = fixed_records(kind, [row])[0]
    return {
        "ref": manifests.ref_json((_TABLES[kind], row["id"], int(row["version"]))),
        "memory_id": row["id"],
        "type": kind,
        "slice": slice_name,
        "tier": FULL,
        "tokens": cost(text),
        "status": "current",
    }


def _placed_entry(slice_name: str, p: Placed) -> dict[str, Any]:
    c = p.candidate
    entry = {
        "ref": manifests.ref_json(c.ref),
        "memory_id": c.id,
        "type": c.kind,
        "slice": slice_name,
        "tier": p.tier,
        "tokens": p.tokens,
        "status": c.status,
        "score": c.score,
    }
    if c.required:
        entry["required"] = True
    if c.stale:
        entry["annotations"] = [manifests.note_json(n) for n in c.stale]
    if c.link:
        entry["link"] = c.link
    return entry


def _ordered(excluded: list[Exclusion]) -> list[Exclusion]:
    return sorted(excluded, key=lambda e: (e.slice, e.rule, e.ref))


_TABLES = {"guideline": "guideline_memory", "persona": "persona_memory", "tool": "toolbox_memory"}
