"""Recall across the caller's conversations: the scoped candidate fetch, the ranker, the neighbours.

1. The candidate fetch: the lexical leg's and the vector leg's best turns and summaries
   (Session.recall_lexical / recall_vector over the recall index, recall_index.py) for what the ranker
   says each leg searches for, each cut to the caller's wall by the database and to the tenant's
   recall policy (policy.py) in the same statement, so scope is decided before anything is ranked.
   The window's own tail is left out.
2. The question's calibrated relevance to what the legs found (kb/relevance.py, the curve
   search_memory's floor is held against): a window recalls nothing for a question below the
   tenant's relevance floor, so an off-topic question brings back no turns.
3. The ranker (ranking.py, replaceable) orders them, fetching the turns around the best ones
   (recall_turns_at, through the wall) or saying which neighbouring turns to bring.
4. Each candidate is held to the floor on its own (each_at_floor): its share of the question's
   relevance, by its score against the best's, as the evidence slice holds each passage, and a
   turn beside an admitted one comes with it. One relevant turn does not bring every other ranked
   turn along.
5. The recalled rows are read as the window shows them (turns and summaries through the wall), each
   asked-for neighbour of a turn just below it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np

from ..backend.base import RecallFilters, Row, Session
from ..identity import Identity
from ..kb import relevance
from ..kb.embed import Embedder
from .policy import RecallPolicy, current_policy
from .ranking import RANKER, NeighbourFetch, Ranked, Ranker, RecallCandidate

__all__ = [
    "ADMISSION",
    "DEPTH",
    "RANKER",
    "RECALLED",
    "Admission",
    "Ranking",
    "Recalled",
    "candidates",
    "each_at_floor",
    "floor_once",
    "rank",
    "recall",
]

#: candidates each leg hands the ranker (LoCoMo: 100 recalls within 0.005 of 200 at 37 turns)
DEPTH = 100
#: ranked turns and summaries a window is offered, best first (LoCoMo's windows of 8,000 tokens admit
#: about 60; offering 100 rather than every candidate admits the same and renders a third as many)
RECALLED = 100
#: the share of the tenant's relevance floor a recalled candidate's own share of the question's
#: relevance must reach (each_at_floor). Chosen on LoCoMo's tuning conversations (26, 30, 41) as
#: bench.conversations asks them: 0.75 is the largest of 0.6-1.0 that cost them at most 0.005 of the
#: evidence the window admits (0.003; 0.8 cost 0.007, the floor itself, as the evidence slice holds
#: passages, about 0.018: docs/benchmarks.md, Conversations remembered)
TURN_FLOOR = 0.75
#: a turn this many places or fewer from an admitted one of its conversation comes with it
NEIGHBOURHOOD = 2


@dataclass(frozen=True)
class Ranking:
    """What recall found for a question, ranked, and how relevant the best of it is."""

    ranked: list[Ranked]
    #: the question's calibrated relevance to the caller's history (kb/relevance.py), 0..1
    relevance: float


@dataclass(frozen=True)
class Recalled:
    """A recalled turn or summary as the window shows it."""

    #: "conversation" (a turn) or "summary"
    kind: str
    row: Row
    score: float
    #: a neighbour's: the recalled turn it came with
    beside: str | None = None


def candidates(
    session: Session,
    embedder: Embedder,
    question: str,
    filters: RecallFilters,
    *,
    exclude: Collection[str] = (),
    depth: int = DEPTH,
    ranker: Ranker | None = None,
    queries: tuple[str, str] | None = None,
) -> list[RecallCandidate]:
    """Both legs' best `depth` turns and summaries the caller may recall, `exclude`d ids left out (each
    leg reads that many more, so leaving them out keeps its best `depth` of the rest); each leg searches
    for what `queries` or else `ranker` says (the lexical query, the text embedded)."""
    extra = len(exclude)
    words, meaning = queries or (ranker or RANKER).queries(question, lambda: _speakers(session, filters))
    lexical = session.recall_lexical(words, depth + extra, filters)
    vector = np.asarray(embedder.embed([meaning])[0], dtype=np.float32)
    cosine = session.recall_vector(vector, embedder.name, depth + extra, filters)
    seqs = list(dict.fromkeys([s for s, _ in lexical] + [s for s, _ in cosine]))
    if not seqs:
        return []
    rows = {r["seq"]: r for r in session.fetch_all("recall_rows", seqs=json.dumps(seqs))}
    kept = {s for s in seqs if s in rows and rows[s]["id"] not in exclude}
    lexical = [(s, v) for s, v in lexical if s in kept][:depth]
    cosine = [(s, v) for s, v in cosine if s in kept][:depth]
    lexical_of = {s: (v, rank) for rank, (s, v) in enumerate(lexical, start=1)}
    vector_of = {s: (v, rank) for rank, (s, v) in enumerate(cosine, start=1)}
    return [
        _candidate(rows[s], lexical_of.get(s), vector_of.get(s))
        for s in dict.fromkeys([s for s, _ in lexical] + [s for s, _ in cosine])
    ]


def _candidate(r: Row, lex: tuple[float, int] | None = None, vec: tuple[float, int] | None = None) -> RecallCandidate:
    return RecallCandidate(
        seq=int(r["seq"]),
        id=r["id"],
        kind=r["kind"],
        conversation_id=r["conversation_id"],
        turn_index=r["turn_index"],
        first_turn=r["first_turn"],
        said_at=r["said_at"],
        speaker=r["speaker"],
        text=r["content"],
        lexical_score=lex[0] if lex else None,
        lexical_rank=lex[1] if lex else None,
        cosine=vec[0] if vec else None,
        vector_rank=vec[1] if vec else None,
    )


def _speakers(session: Session, filters: RecallFilters) -> list[str]:
    return [r["speaker"] for r in session.fetch_all("recall_speakers", **filters.policy_binds())]


def _turns_at(session: Session) -> NeighbourFetch:
    """The ranker's neighbour fetch: the caller's recall rows of turns at the given places."""

    def fetch(places):
        rows = session.fetch_all("recall_turns_at", turns=json.dumps([[c, int(i)] for c, i in places]))
        return [_candidate(r) for r in rows]

    return fetch


def rank(
    session: Session,
    embedder: Embedder,
    question: str,
    filters: RecallFilters,
    *,
    exclude: Collection[str] = (),
    ranker: Ranker | None = None,
    depth: int = DEPTH,
) -> Ranking:
    """The caller's recall candidates for `question` ranked by `ranker` (neighbours fetched as it asks),
    with the question's calibrated relevance to them."""
    ranker = ranker or RANKER
    queries = ranker.queries(question, lambda: _speakers(session, filters))
    found = candidates(session, embedder, question, filters, exclude=exclude, depth=depth, queries=queries)
    if not found:
        return Ranking([], 0.0)
    scored = {
        relevance.LEXICAL: [(c.seq, c.lexical_score or 0.0) for c in sorted(found, key=_lexical) if c.lexical_rank],
        relevance.VECTOR: [(c.seq, c.cosine or 0.0) for c in found if c.vector_rank],
    }
    # the question as asked: a person it names whose turns the caller may recall is evidence too
    calibrated = relevance.calibration_for(embedder.name).relevance(
        relevance.evidence(question, scored, {c.seq: c.text for c in found})
    )
    return Ranking(ranker.rank(question, found, _turns_at(session)), calibrated)


def _lexical(c: RecallCandidate) -> int:
    return c.lexical_rank or 0


def recall(
    session: Session,
    embedder: Embedder,
    question: str,
    identity: Identity,
    conversation_id: str | None,
    now: str,
    *,
    exclude: Collection[str] = (),
    ranker: Ranker | None = None,
    depth: int = DEPTH,
    policy: RecallPolicy | None = None,
    relevance_floor: float = 0.0,
) -> list[Recalled]:
    """The caller's recalled turns and summaries for `question`, best first, each turn's neighbours (as
    the ranker asks) just below it; `conversation_id` is the caller's own conversation, `exclude` the
    ids its window already holds (its tail). Nothing when the question's calibrated relevance to what
    was found is below `relevance_floor` (the tenant's, as search_memory's), and otherwise only the
    candidates ADMISSION admits (each_at_floor: each relevant enough on its own, or beside one)."""
    policy = policy or current_policy(session, now)
    filters = policy.filters(identity, conversation_id)
    found = rank(session, embedder, question, filters, exclude=exclude, ranker=ranker, depth=depth)
    ranked = ADMISSION(found, relevance_floor)[:RECALLED]
    if not ranked:
        return []
    turns = _rows(
        session, "context_rows_conversation_memory", [r.candidate.id for r in ranked if r.candidate.kind == "turn"]
    )
    summaries = _rows(
        session, "context_rows_summarization_memory", [r.candidate.id for r in ranked if r.candidate.kind == "summary"]
    )
    shown = set(exclude)
    out: list[Recalled] = []
    for r in ranked:
        row = (turns if r.candidate.kind == "turn" else summaries).get(r.candidate.id)
        if row is None or r.candidate.id in shown:
            continue
        shown.add(row["id"])
        out.append(Recalled("conversation" if r.candidate.kind == "turn" else "summary", row, r.score))
        out += _neighbours(session, r, row, shown)
    return out


def each_at_floor(found: Ranking, floor: float) -> list[Ranked]:
    """The ranked candidates relevant enough on their own, and the turns beside them.

    Nothing when the question's relevance is below `floor`. Otherwise a candidate is an anchor when its
    share of the question's relevance (the relevance times its score over the best's, as the evidence
    slice holds each passage: kb/relevance.py, fuse) reaches TURN_FLOOR of the floor, and a turn within
    NEIGHBOURHOOD places of an anchor of its conversation comes with it (an answer sits next to the
    turn that matches). One matching turn does not bring the caller's unrelated turns along."""
    if not found.ranked or found.relevance < floor:
        return []
    top = max(r.score for r in found.ranked) or 1.0
    anchors = [r for r in found.ranked if found.relevance * r.score / top >= TURN_FLOOR * floor]
    near: dict[str, list[int]] = {}
    for r in anchors:
        if _place(r) is not None:
            near.setdefault(r.candidate.conversation_id, []).append(int(r.candidate.turn_index or 0))
    kept = {id(r) for r in anchors}

    def beside(r: Ranked) -> bool:
        place = _place(r)
        return place is not None and any(
            abs(place - i) <= NEIGHBOURHOOD for i in near.get(r.candidate.conversation_id, ())
        )

    return [r for r in found.ranked if id(r) in kept or beside(r)]


def _place(r: Ranked) -> int | None:
    """A turn's number in its conversation (None for a summary)."""
    return int(r.candidate.turn_index) if r.candidate.kind == "turn" and r.candidate.turn_index is not None else None


def floor_once(found: Ranking, floor: float) -> list[Ranked]:
    """The first rule: every ranked candidate when the question's relevance reaches `floor`, however
    weak each one is (kept so that bench/recall_admission.py can measure both in one run)."""
    return relevance.answered(found.ranked, floor, lambda _: found.relevance).kept


#: which ranked candidates recalled history admits, given the question's Ranking and the tenant's floor
Admission = Callable[[Ranking, float], list[Ranked]]
#: the rule windows use (a replacement is any Admission)
ADMISSION: Admission = each_at_floor


def _neighbours(session: Session, r: Ranked, row: Row, shown: set[str]) -> list[Recalled]:
    if r.candidate.kind != "turn" or not (r.before or r.after) or row.get("turn_index") is None:
        return []
    index = int(row["turn_index"])
    around = session.fetch_all(
        "conversation_turns_between",
        conversation=row["conversation_id"],
        first=max(1, index - r.before),
        last=index + r.after,
    )
    out = []
    for n in around:
        if n["id"] in shown:
            continue
        shown.add(n["id"])
        # just below the turn it came with, nearer turns first
        out.append(Recalled("conversation", n, r.score * (1 - 1e-3 * abs(int(n["turn_index"]) - index)), row["id"]))
    return out


def _rows(session: Session, statement: str, ids: list[str]) -> dict[str, Row]:
    if not ids:
        return {}
    return {r["id"]: r for r in session.fetch_all(statement, ids=json.dumps(ids))}
