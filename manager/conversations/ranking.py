"""How recalled turns are ranked: the seam a ranker plugs into.

Recall (recall.py) fetches candidates first, with the tenant and scope predicates and the recall
policy applied before anything is ranked: the lexical leg's best and the vector leg's best turns and
summaries of the caller's conversations, without the window's own tail. A ranker says what each leg
searches for, then orders what they found:

    queries(question, speakers) -> (lexical query, vector query)
    rank(question, candidates, neighbours) -> [Ranked(candidate, score, before, after), ...] best first

Each candidate carries what a ranker may weigh (RecallCandidate): its conversation and turn numbers,
when it was said, who said it, its recall text ("Speaker (8 May 2023): words"), the lexical leg's
score and rank and the vector leg's cosine and rank (None for a leg that did not find it). `speakers`
gives the speakers of the turns in the caller's scope (read only when called); `neighbours` fetches
the turns at given places ([conversation id, turn number]) as candidates of no leg. `score` is in
0..1 (the window weighs it with recency and confidence, as every memory's); `before` and `after` ask
the window to bring that many neighbouring turns of the same conversation along, just below it.

`TurnRanker` (the default) is recall_rank.py's ranking, measured on LoCoMo by bench/recall_study.py
and bench/conversations.py (docs/benchmarks.md, Conversations remembered): the speakers' names
leave the lexical query, the vector leg embeds the question's content words against each turn
embedded with the turn it replies to (recall_index.py), legs fused 0.8 lexical / 0.2 vector, a turn
inherits a share of its neighbours' scores (the turns around the best 50 candidates are fetched),
of its conversation's strength, and counts half when the question names another speaker. Its weights
were chosen on LoCoMo conversations 0-2 only.

`HybridRanker` is the first ranking: the knowledge base's hybrid search (kb/search.py) applied to
turns as the question gives them, each leg's score divided by its best (fusion.convex_fusion), the
lexical leg weighted 0.8 (0.9 for an identifier look-up, as search_memory weighs one), and two turns
on each side of the best eight brought along. A replacement is any object with `name`, `queries` and
`rank` (set `RANKER` or pass it to assembly); its name is recorded in each window's manifest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..backend.query_terms import is_keyword_query
from ..kb.fusion import convex_fusion
from ..kb.search import KEYWORD_LEXICAL_WEIGHT
from . import recall_rank
from .recall_index import turn_words

__all__ = [
    "RANKER",
    "ROLES",
    "HybridRanker",
    "NeighbourFetch",
    "Ranked",
    "Ranker",
    "RecallCandidate",
    "Speakers",
    "TurnRanker",
]


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


#: the turns at these places (conversation id, turn number) the caller may recall, as candidates of no leg
NeighbourFetch = Callable[[Sequence[tuple[str, int]]], list[RecallCandidate]]
#: the speakers of the turns in the caller's recall scope (a statement runs when it is called)
Speakers = Callable[[], Sequence[str]]
#: speakers that are a turn's role, not a person a question names
ROLES = frozenset({"user", "assistant", "system", "tool", "developer"})


class Ranker(Protocol):
    #: recorded in the window's manifest (selection_version)
    name: str

    def queries(self, question: str, speakers: Speakers) -> tuple[str, str]:
        """What the lexical leg searches for and what the vector leg embeds."""

    def rank(
        self, question: str, candidates: Sequence[RecallCandidate], neighbours: NeighbourFetch | None = None
    ) -> list[Ranked]:
        """The candidates worth recalling, best first, each with a score in 0..1."""


class HybridRanker:
    """The knowledge base's hybrid fusion over turns, with the turns around the best few."""

    name = "hybrid-1"

    def __init__(self, *, lexical_weight: float = 0.8, neighbours_of: int = 8, before: int = 2, after: int = 2):
        #: the lexical leg's share of a question's score (an identifier look-up: KEYWORD_LEXICAL_WEIGHT)
        self.lexical_weight = lexical_weight
        #: how many of the best turns bring their neighbours, and how many on each side
        self.neighbours_of, self.before, self.after = neighbours_of, before, after

    def queries(self, question: str, speakers: Speakers) -> tuple[str, str]:
        return question, question

    def rank(
        self, question: str, candidates: Sequence[RecallCandidate], neighbours: NeighbourFetch | None = None
    ) -> list[Ranked]:
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


class TurnRanker:
    """recall_rank.rank_turns behind the seam: names out of the lexical query, neighbours and
    conversations weighed, the turns around the best candidates fetched."""

    name = "turns-1"

    def __init__(self, weights: recall_rank.RecallWeights = recall_rank.WEIGHTS):
        self.weights = weights

    def queries(self, question: str, speakers: Speakers) -> tuple[str, str]:
        people = [s for s in speakers() if s.casefold() not in ROLES]
        return recall_rank.lexical_query(question, people), recall_rank.vector_query(question)

    def rank(
        self, question: str, candidates: Sequence[RecallCandidate], neighbours: NeighbourFetch | None = None
    ) -> list[Ranked]:
        found: dict[recall_rank.TurnId, RecallCandidate] = {}

        def place(c: RecallCandidate) -> recall_rank.Candidate:
            # a summary is a conversation of its own here: it has no neighbours and no turn's place
            tid = (c.conversation_id, int(c.turn_index)) if c.kind == "turn" and c.turn_index is not None else None
            conv, index = tid or (f"summary:{c.id}", 0)
            found.setdefault((conv, index), c)
            speaker = c.speaker or ""
            return recall_rank.Candidate(
                conv,
                index,
                speaker,
                turn_words(speaker, c.said_at, c.text) if c.kind == "turn" else c.text,
                c.said_at,
                lexical_rank=c.lexical_rank,
                lexical_score=c.lexical_score,
                vector_rank=c.vector_rank,
                cosine=c.cosine,
            )

        lexical = [place(c) for c in sorted(candidates, key=lambda c: c.lexical_rank or 0) if c.lexical_rank]
        vector = [place(c) for c in sorted(candidates, key=lambda c: c.vector_rank or 0) if c.vector_rank]

        def around(ids: Sequence[recall_rank.TurnId]) -> list[recall_rank.Candidate]:
            wanted = [i for i in ids if not i[0].startswith("summary:")]
            return [place(c) for c in neighbours(wanted)] if neighbours and wanted else []

        recalled = recall_rank.rank_turns(question, lexical, vector, around, self.weights)
        return [Ranked(found[r.id], r.relevance) for r in recalled.turns if r.id in found]


#: the ranker windows use unless assembly is given another
RANKER: Ranker = TurnRanker()
