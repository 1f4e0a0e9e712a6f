"""Gathering what a window may hold, from every memory type, and each candidate's retrieval score.

Candidates are read through the caller's wall, every lifecycle state included, so
selection can say why a version is left out. Durable facts and summaries that are not a
conversation's are found by the question's terms (such a summary, recalled history, only when the
question's calibrated relevance to it reaches the tenant's relevance floor); evidence by the knowledge base's
hybrid search; recalled history by conversation recall (conversations/recall.py: the
caller's turns and compaction summaries in its recall policy's scope, ranked by the
recall ranker, a turn's neighbours beside it; nothing when the question's calibrated relevance to
them is below the tenant's relevance floor, and otherwise each turn by its own share of it); the
volatile tail is the caller's own conversation's recent turns by turn index, after its latest summary.

The retrieval score is a hybrid score in 0..1: reciprocal rank fusion of a
lexical ranking and a vector ranking, divided by the score of a memory ranked first in
both; for chunks, the knowledge base's calibrated relevance (already 0..1), and only chunks that
reach the tenant's relevance floor are candidates.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..backend.base import Row, Session
from ..backend.query_terms import STOP_WORDS
from ..claims import stale
from ..conversations import compaction, keys
from ..conversations.ranking import Ranker
from ..conversations.recall import recall
from ..identity import Identity
from ..kb import relevance
from ..kb import search as kb_search
from ..kb.embed import Embedder
from ..kb.fusion import reciprocal_rank_fusion
from ..limits import DEFAULT_RELEVANCE_FLOOR
from ..output.records import StaleFact
from .forms import full_body
from .layout import RECALLED_HISTORY, TYPES, VOLATILE_TAIL

__all__ = ["Candidate", "gather", "question_terms"]

#: candidates read per type, at most
PER_TYPE = 50
EVIDENCE_HITS = 20
TAIL_TURNS = 20
_MAX_TERMS = 24
_WORD = re.compile(r"[a-z0-9]+(?:[.@_:-][a-z0-9]+)*")
#: stop words (the one list, backend/query_terms.py) and the request words of a question to assembly
_STOP = STOP_WORDS | frozenset(["check", "give", "please", "show", "tell"])


@dataclass
class Candidate:
    kind: str
    slice: str
    row: Row
    #: the hybrid retrieval score, 0..1
    retrieval: float = 0.0
    #: claim versions this memory used that are no longer current
    stale: tuple[StaleFact, ...] = ()
    #: a current fact some admitted memory needs shown whole beside it
    required: bool = False
    status: str = ""
    score: float = 0.0
    extra: dict = field(default_factory=dict)
    #: how a memory that entered as linked history relates to the one that brought it:
    #: {"linked_to": id, "relation": ..., "direction": "in" | "out"}
    link: dict | None = None

    def __post_init__(self) -> None:
        self.status = self.status or TYPES[self.kind].status

    @property
    def table(self) -> str:
        return TYPES[self.kind].table

    @property
    def id(self) -> str:
        return self.row["id"]

    @property
    def ref(self) -> tuple[str, str, int]:
        return (self.table, self.row["id"], int(self.row.get("version") or 1))

    @property
    def priority(self) -> int:
        return TYPES[self.kind].priority


def question_terms(question: str) -> list[str]:
    """Lower-case words of the question worth matching: no stop words, no single letters."""
    terms: list[str] = []
    for word in _WORD.findall(question.lower()):
        if word in _STOP or (len(word) < 3 and not any(ch.isdigit() for ch in word)):
            continue
        if word not in terms:
            terms.append(word)
    return terms[:_MAX_TERMS]


def gather(
    session: Session,
    embedder: Embedder,
    question: str,
    now: str,
    identity: Identity,
    ranker: Ranker | None = None,
    *,
    relevance_floor: float = DEFAULT_RELEVANCE_FLOOR,
) -> list[Candidate]:
    """Every variable-slice candidate, with retrieval scores and the stale facts each one used; passages
    below the tenant's relevance floor are no candidates (an off-topic question gets no evidence), and
    a question whose calibrated relevance to the caller's past conversations is below it recalls none
    (above it, recall admits each turn by its own share: conversations/recall.py, each_at_floor)."""
    terms = question_terms(question)
    conversation = keys.find(session, identity)
    own = conversation["id"] if conversation else None
    found: list[Candidate] = []
    if terms:
        params = {"terms": json.dumps(terms), "limit": PER_TYPE}
        found += [
            Candidate("entity", TYPES["entity"].slice, r)
            for r in session.fetch_all("context_entity_matching", **params)
        ]
        found += [
            Candidate("workflow", TYPES["workflow"].slice, r)
            for r in session.fetch_all("context_workflow_matching", **params)
        ]
        found += [
            Candidate("summary", RECALLED_HISTORY, r) for r in session.fetch_all("context_summary_matching", **params)
        ]
    cosine = _score_by_retrieval(found, embedder, question, terms)
    found = _summaries_at_floor(found, cosine, question, embedder.name, relevance_floor)
    found += _evidence(session, embedder, question, now, relevance_floor)
    tail = session.fetch_all("conversation_tail", conversation=own, limit=TAIL_TURNS) if own else []
    compacted = compaction.latest(session, own)
    if compacted is not None:  # the latest summary stands for the turns it covers, before the rest
        tail = [r for r in tail if int(r["turn_index"]) > compacted.last]
        found.append(Candidate("summary", VOLATILE_TAIL, compacted.summary))
    in_tail = {r["id"] for r in tail} | ({compacted.summary["id"]} if compacted else set())
    found += [
        Candidate(r.kind, RECALLED_HISTORY, r.row, retrieval=r.score)
        for r in recall(
            session,
            embedder,
            question,
            identity,
            own,
            now,
            exclude=in_tail,
            ranker=ranker,
            relevance_floor=relevance_floor,
        )
    ]
    found += [Candidate("conversation", VOLATILE_TAIL, r) for r in tail]
    # a claim derived from another claim's version is checked too; a claim's own earlier version is
    # the one its correction replaced, not a fact it used
    claims = {c.id: (c.row["subject"], c.row["predicate"]) for c in found if c.kind == "entity"}
    notes = stale.stale_facts(session, {c.id: stale.refs_of(c.row) for c in found}, now, own_claims=claims)
    for c in found:
        c.stale = notes.get(c.id, ())
    return found


def _evidence(session: Session, embedder: Embedder, question: str, now: str, floor: float) -> list[Candidate]:
    ranked = kb_search.search(session, embedder, question, now, limit=EVIDENCE_HITS)
    hits = relevance.above_floor(ranked, floor, lambda h: h.score).kept
    if not hits:
        return []
    rows = {
        r["id"]: r for r in session.fetch_all("context_rows_knowledge_base_chunk", ids=json.dumps([h.id for h in hits]))
    }
    return [
        # a hit's score is its calibrated relevance, in 0..1 (kb/relevance.py)
        Candidate("kb_chunk", TYPES["kb_chunk"].slice, rows[h.id], retrieval=min(1.0, h.score))
        for h in hits
        if h.id in rows
    ]


def _summaries_at_floor(
    found: list[Candidate], cosine: Sequence[float], question: str, embedder_name: str, floor: float
) -> list[Candidate]:
    """`found` without the summaries whose calibrated relevance to the question (kb/relevance.py's curve
    over their cosine to it and the share of its words they hold) is below the floor: a summary shares a
    word with an off-topic question as easily as a turn does, and recalled history holds both to it."""
    words = relevance.query_words(question)
    curve = relevance.calibration_for(embedder_name)

    def calibrated(i: int, c: Candidate) -> float:
        cover = relevance.coverage(words, full_body(c.kind, c.row))
        return curve.relevance(relevance.Evidence(len(words), float(cosine[i]), cover, None))

    return [c for i, c in enumerate(found) if c.slice != RECALLED_HISTORY or calibrated(i, c) >= floor]


def _score_by_retrieval(
    found: Sequence[Candidate], embedder: Embedder, question: str, terms: list[str]
) -> Sequence[float]:
    """Sets each candidate's retrieval score; returns each one's cosine to the question."""
    if not found:
        return []
    bodies = [full_body(c.kind, c.row).lower() for c in found]
    matched = [sum(1 for t in terms if t in body) for body in bodies]
    lexical = sorted((i for i in range(len(found)) if matched[i]), key=lambda i: (-matched[i], found[i].id))
    vectors = np.asarray(embedder.embed([question] + bodies), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0
    cosine = (vectors[1:] @ vectors[0]) / (norms[1:] * norms[0])
    vector = sorted((i for i in range(len(found)) if cosine[i] > 0), key=lambda i: (-float(cosine[i]), found[i].id))
    fused = reciprocal_rank_fusion({"lexical": lexical, "vector": vector}, k=kb_search.RRF_K)
    best = 2 / (kb_search.RRF_K + 1)
    for f in fused:
        found[f.id].retrieval = min(1.0, f.score / best)
    return [float(c) for c in cosine]
