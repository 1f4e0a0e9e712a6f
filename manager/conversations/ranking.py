"""How recalled turns are ranked: the seam a better ranker plugs into.

Recall (recall.py) fetches candidates first, with the tenant and scope predicates and the recall
policy applied before anything is ranked: the lexical leg's best and the vector leg's best turns and
summaries of the caller's conversations, without the window's own tail. A ranker then orders them:

    rank(question, candidates) -> [Ranked(candidate, score, before, after), ...] best first

Each candidate carries what a ranker may weigh (RecallCandidate): its conversation and turn numbers,
when it was said, who said it, its recall text ("Speaker (8 May 2023): words"), the lexical leg's
score and rank and the vector leg's cosine and rank (None for a leg that did not find it). `score`
is in 0..1 (the window weighs it with recency and confidence, as every memory's); `before` and `after`
ask the window to bring that many neighbouring turns of the same conversation along, just below it.

`HybridRanker` is the first honest ranking: the knowledge base's hybrid search (kb/search.py) applied
to turns: each leg's score divided by its best (fusion.convex_fusion), the lexical leg weighted 0.8 for
a question (0.9 for an identifier look-up, as search_memory weighs one), and the turns around the best
few brought along (two on each side of the best eight). The 0.8 and the neighbours were set on LoCoMo
conversations 26 and 30 (there the lexical leg alone recalls more than an even mix with the default
embedder, and two neighbours of the best eight admit the most evidence); docs/benchmarks.md reports
the other eight apart. A
replacement is any object with `name` and `rank` (set `RANKER` or pass it to assembly); its name is
recorded in each window's manifest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..backend.query_terms import is_keyword_query
from ..kb.fusion import convex_fusion
from ..kb.search import KEYWORD_LEXICAL_WEIGHT

__all__ = ["RANKER", "HybridRanker", "Ranked", "Ranker", "RecallCandidate"]


@dataclass(frozen=True)
class RecallCandidate:
    """A turn or summary recall found, and what each leg said of it."""

    seq: int
    #: the turn's (conversation_memory) or summary's (summarization_memory) id
    id: str
    #: "turn" or "summary"
    kind: str
    conversation_id: str
    #: a turn's number; a summary's last turn
    turn_index: int | None
    #: a summary's first turn
    first_turn: int | None
    #: when it was said (ISO-8601 UTC; a summary: its last turn's time)
    said_at: str
    speaker: str | None
    #: the recall text: "Speaker (8 May 2023): words"
    text: str
    #: the lexical leg's score (higher is better; BM25 negated on SQLite) and 1-based rank, or None
    lexical_score: float | None
    lexical_rank: int | None
    #: the vector leg's cosine and 1-based rank, or None
    cosine: float | None
    vector_rank: int | None


@dataclass(frozen=True)
class Ranked:
    candidate: RecallCandidate
    #: 0..1, best first
    score: float
    #: neighbouring turns of its conversation to bring along (turns only)
    before: int = 0
    after: int = 0


class Ranker(Protocol):
    #: recorded in the window's manifest (selection_version)
    name: str

    def rank(self, question: str, candidates: Sequence[RecallCandidate]) -> list[Ranked]:
        """The candidates worth recalling, best first, each with a score in 0..1."""


class HybridRanker:
    """The knowledge base's hybrid fusion over turns, with the turns around the best few."""

    name = "hybrid-1"

    def __init__(self, *, lexical_weight: float = 0.8, neighbours_of: int = 8, before: int = 2, after: int = 2):
        #: the lexical leg's share of a question's score (an identifier look-up: KEYWORD_LEXICAL_WEIGHT)
        self.lexical_weight = lexical_weight
        #: how many of the best turns bring their neighbours, and how many on each side
        self.neighbours_of, self.before, self.after = neighbours_of, before, after

    def rank(self, question: str, candidates: Sequence[RecallCandidate]) -> list[Ranked]:
        by_seq = {c.seq: c for c in candidates}
        lexical = sorted(
            ((c.seq, c.lexical_score) for c in candidates if c.lexical_score is not None),
            key=lambda p: by_seq[p[0]].lexical_rank or 0,
        )
        vector = sorted(
            ((c.seq, c.cosine) for c in candidates if c.cosine is not None),
            key=lambda p: by_seq[p[0]].vector_rank or 0,
        )
        scored = {name: legs for name, legs in (("lexical", lexical), ("vector", vector)) if legs}
        if not scored:
            return []
        lexical_weight = (
            max(self.lexical_weight, KEYWORD_LEXICAL_WEIGHT) if is_keyword_query(question) else self.lexical_weight
        )
        weights = {"lexical": lexical_weight, "vector": 1.0 - lexical_weight}
        total = sum(weights[m] for m in scored)
        fused = convex_fusion(scored, {m: weights[m] / total for m in scored})
        out: list[Ranked] = []
        turns = 0
        for f in fused:
            c = by_seq[f.id]  # type: ignore[index]
            near = c.kind == "turn" and turns < self.neighbours_of
            turns += c.kind == "turn"
            out.append(Ranked(c, min(1.0, f.score), self.before if near else 0, self.after if near else 0))
        return out


#: the ranker windows use unless assembly is given another
RANKER: Ranker = HybridRanker()
