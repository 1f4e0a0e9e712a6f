"""Selection: which candidates a window may hold, in what order, and a rule for every one left out.

In order, at one evaluation time:
1. lifecycle: deleted, superseded, expired and not-yet-effective versions out (rule
   `lifecycle`, the state as detail). Which conversations' turns are candidates at all is the
   recall policy's (conversations/policy.py), decided before anything is ranked;
2. dedup: exact normalized-text copies across types, keeping the most authoritative
   (`dedup`);
3. conflicts: within a claim (subject, predicate and conditions) the narrowest scope wins
   (`conflict`); a memory that used a since-corrected fact stays, labeled historical, and
   the current fact becomes required at full size; one whose fact was withdrawn (no
   current version) goes (`conflict`): the stale value is never shown alone;
4. score = weights.rerank * rerank + weights.confidence * confidence (0.5 if none) +
   weights.recency * recency (1 today, 0 at recency_days old); ties by priority desc,
   valid_from desc, source table, row id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..clock import parse_iso
from ..limits import ContextBudget
from .candidates import Candidate
from .forms import dedup_text
from .layout import HISTORICAL
from .rerank import Reranker

__all__ = ["SELECTION_VERSION", "Exclusion", "select"]

SELECTION_VERSION = "selection-2"
LIFECYCLE, SCOPE, DEDUP, CONFLICT, BUDGET = "lifecycle", "scope", "dedup", "conflict", "budget"
_CLAIM_KEYS = {"entity": ("subject", "predicate"), "workflow": ("workflow_key",)}


@dataclass(frozen=True)
class Exclusion:
    ref: tuple[str, str, int]
    kind: str
    slice: str
    rule: str
    detail: str

    def as_json(self) -> dict:
        table, id, version = self.ref
        return {
            "ref": {"table": table, "id": id, "version": version},
            "type": self.kind,
            "slice": self.slice,
            "rule": self.rule,
            "detail": self.detail,
        }


def exclusion(c: Candidate, rule: str, detail: str) -> Exclusion:
    return Exclusion(c.ref, c.kind, c.slice, rule, detail)


def select(
    candidates: Sequence[Candidate],
    *,
    question: str,
    now: str,
    budget: ContextBudget,
    reranker: Reranker,
) -> tuple[list[Candidate], list[Exclusion]]:
    """The admitted candidates, best first, and the exclusions with their rules."""
    out: list[Exclusion] = []
    live = _lifecycle(candidates, now, out)
    live = _dedup(live, out)
    live = _conflicts(live, out)
    scores = reranker.scores(question, live)
    w = budget.weights
    for c, rerank in zip(live, scores, strict=True):
        confidence = c.row.get("confidence")
        c.score = round(
            w.rerank * max(0.0, min(1.0, rerank))
            + w.confidence * (0.5 if confidence is None else float(confidence))
            + w.recency * _recency(c.row["valid_from"], now, budget.recency_days),
            6,
        )
    live.sort(key=order_key)
    return live, out


def order_key(c: Candidate) -> tuple:
    """Score desc, then priority desc, valid_from desc, source table, row id."""
    return (-c.score, -c.priority, _desc(c.row["valid_from"]), c.table, c.id)


def lifecycle_state(row: dict, now: str, newer: bool) -> str | None:
    """None when the version is in force at `now`, else why not."""
    if row.get("deleted_at") is not None and row["deleted_at"] <= now:
        return "deleted"
    if row["valid_from"] > now:
        return "pending"
    if row.get("valid_until") is not None and row["valid_until"] <= now:
        return "superseded" if newer else "expired"
    return None


def _lifecycle(candidates: Sequence[Candidate], now: str, out: list[Exclusion]) -> list[Candidate]:
    newest: dict[tuple, int] = {}
    for c in candidates:
        if c.kind in _CLAIM_KEYS:
            key = _claim(c)
            newest[key] = max(newest.get(key, 0), int(c.row["version"]))
    live = []
    for c in candidates:
        newer = c.kind in _CLAIM_KEYS and newest[_claim(c)] > int(c.row["version"])
        state = lifecycle_state(c.row, now, newer)
        if state:
            out.append(exclusion(c, LIFECYCLE, state))
        else:
            live.append(c)
    return live


def _dedup(live: list[Candidate], out: list[Exclusion]) -> list[Candidate]:
    kept: dict[str, Candidate] = {}
    for c in sorted(live, key=lambda c: (-c.priority, _desc(c.row["valid_from"]), c.table, c.id)):
        text = dedup_text(c.kind, c.row)
        if text in kept:
            out.append(exclusion(c, DEDUP, f"same text as {kept[text].id}"))
        else:
            kept[text] = c
    keep = {id(c) for c in kept.values()}
    return [c for c in live if id(c) in keep]


def _conflicts(live: list[Candidate], out: list[Exclusion]) -> list[Candidate]:
    groups: dict[tuple, list[Candidate]] = {}
    for c in live:
        if c.kind == "entity":
            groups.setdefault((c.row["subject"], c.row["predicate"], _conditions(c)), []).append(c)
    losers: set[int] = set()
    for members in groups.values():
        members.sort(key=lambda c: (-_specificity(c), -int(c.row["version"]), c.id))
        for c in members[1:]:
            losers.add(id(c))
            out.append(exclusion(c, CONFLICT, f"a narrower or newer version of the claim wins: {members[0].id}"))
    kept = []
    for c in live:
        if id(c) in losers:
            continue
        if any(not note.current_fact_id for note in c.stale):
            out.append(exclusion(c, CONFLICT, "used a fact that has no current version"))
            continue
        if c.stale:
            c.status = HISTORICAL
        kept.append(c)
    return kept


def _claim(c: Candidate) -> tuple:
    scope = tuple(c.row.get(k) for k in ("user_id", "agent_id", "thread_id"))
    return (c.kind,) + tuple(c.row[k] for k in _CLAIM_KEYS[c.kind]) + scope


def _conditions(c: Candidate) -> str:
    raw = c.row.get("content_json")
    try:
        return json.dumps(json.loads(raw), sort_keys=True) if raw else ""
    except ValueError:
        return str(raw)


def _specificity(c: Candidate) -> int:
    return sum(c.row.get(k) is not None for k in ("user_id", "agent_id", "thread_id"))


def _recency(valid_from: str, now: str, recency_days: float) -> float:
    age = (parse_iso(now) - parse_iso(valid_from)).total_seconds() / 86400
    return max(0.0, min(1.0, 1 - age / recency_days))


@lru_cache(maxsize=65536)
def _desc(text: str) -> tuple:
    """Sorts ISO timestamps newest first inside an ascending sort key (cached: sorts call it per key)."""
    return tuple(-ord(ch) for ch in text)
