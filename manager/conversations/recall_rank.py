"""Ranking recalled turns: which of the caller's past turns a question should bring back, best first.

The fetch (SQL, in the caller's scope) hands this module a lexical top-N (FTS5 bm25 of
`lexical_query(question, speakers)` over each turn's `index_text`) and a vector top-N (cosine of
`vector_query(question)` against each turn's embedded `embedding_text`), and, on request, the turns
around the best of them. Nothing here reads a database. A store calls it as:

    recall = rank_turns(question, lexical_top_100, vector_top_100, fetch_turns_by_id)
    for ranked in recall.turns:  # best first; admit until the slice is full
        ranked.turn, ranked.relevance, ranked.reason

A turn's own score is a convex sum of its two legs, each divided by its leg's best (lexical 0.8,
vector 0.2). Then, measured on LoCoMo (bench/recall_study.py, weights chosen on conversations 0-2 and
reported on the other seven):

- an answer sits next to the turn that matches the question ("Did you go?" / "Yes, last Friday"), so a
  turn inherits a share of its neighbours' own scores (one and two turns away), and those neighbours
  are fetched even when neither leg listed them;
- the evidence of a question clusters in one conversation (session), so each turn gains a share of its
  conversation's strength (its best own score, the strongest conversation's = 1);
- a question naming a speaker ("When did Caroline ...") is answered by that speaker's turns 96% of the
  time, so the other speakers' turns count half;
- a "when" question is answered by a turn that says when ("yesterday", "last week", "in May"), so
  those gain a little.

Each is a weight of `RecallWeights`; 0 turns a step off (the study's ablations do exactly that).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from ..backend.query_terms import query_terms

__all__ = [
    "WEIGHTS",
    "Candidate",
    "NeighbourSource",
    "RankedTurn",
    "Recall",
    "RecallWeights",
    "TurnId",
    "embedding_text",
    "index_text",
    "lexical_query",
    "rank_turns",
    "said_on",
    "vector_query",
]

#: a turn's key: (conversation id, turn index); turn indexes of a conversation are consecutive
TurnId = tuple[str, int]


@dataclass(frozen=True)
class Candidate:
    """A turn as the fetch returns it. A lexical candidate carries lexical_rank and lexical_score, a vector
    candidate cosine and vector_rank; a turn both legs found may come once with all four or once per leg.
    A neighbour (fetched only because it sits next to a candidate) carries none of them."""

    conversation_id: str
    turn_index: int
    speaker: str
    text: str
    said_at: datetime | date | str | None = None
    #: 1-based rank in the lexical leg
    lexical_rank: int | None = None
    #: the lexical leg's score, larger is better (FTS5's bm25() negated)
    lexical_score: float | None = None
    #: 1-based rank in the vector leg
    vector_rank: int | None = None
    cosine: float | None = None

    @property
    def id(self) -> TurnId:
        return (self.conversation_id, self.turn_index)


#: the turns around the candidates: a callback given the ids it should fetch (same conversation, existing
#: ones only are returned), or the neighbours already fetched, or None (only candidates are ranked)
NeighbourSource = Callable[[Sequence[TurnId]], Iterable[Candidate]] | Iterable[Candidate] | None


@dataclass(frozen=True)
class RecallWeights:
    """How a turn's score is made. The weights were chosen on LoCoMo conversations 0-2 (docs/benchmarks.md,
    Conversations remembered); expand_top and window were set beforehand, and the study shows their effect."""

    #: the vector leg's share of a turn's own score (the lexical leg has the rest)
    vector: float = 0.2
    #: "convex" (each leg's score over its best, weighted) or "rrf" (1 / (60 + rank), weighted)
    fusion: str = "convex"
    #: the share of the previous turn's own score a turn inherits (an answer follows its question)
    previous: float = 0.2
    #: the share of the next turn's own score a turn inherits (a question precedes its answer)
    following: float = 0.1
    #: the share of the own scores of the turns two away, either side
    second: float = 0.2
    #: the share of its conversation's strength a turn gains (the strongest conversation is 1)
    conversation: float = 0.2
    #: a conversation's strength: the sum of this many of its best own scores (1: its best turn's)
    conversation_top: int = 1
    #: the factor of a turn by a speaker the question does not name, when it names one
    other_speaker: float = 0.5
    #: the boost of a turn saying when, for a question asking when
    temporal: float = 0.3
    #: the turns around this many of the best candidates are fetched and ranked
    expand_top: int = 50
    #: how far around a candidate its neighbours are fetched (at least 2 when `second` is used)
    window: int = 2


WEIGHTS = RecallWeights()
#: RRF's k, as the knowledge base's (kb/search.py)
_RRF_K = 60


@dataclass(frozen=True)
class RankedTurn:
    turn: Candidate
    #: 0..1, the best turn 1
    relevance: float
    #: why it is here, for the window's manifest ("lexical #2, vector #7", "after a match (turn 14)")
    reason: str

    @property
    def id(self) -> TurnId:
        return self.turn.id


@dataclass(frozen=True)
class Recall:
    #: every candidate and fetched neighbour, best first; admit from the top until the slice is full
    turns: list[RankedTurn]
    #: the ids among `turns` that no leg listed (fetched as neighbours): rendered from the fetched rows
    neighbours: list[TurnId] = field(default_factory=list)


def said_on(said_at: datetime | date | str | None) -> str:
    """The day a turn was said, as a model reads it: "8 May 2023" ('' when unknown)."""
    if said_at is None or said_at == "":
        return ""
    when = said_at if isinstance(said_at, date) else datetime.fromisoformat(str(said_at).replace("Z", "+00:00"))
    return f"{when.day} {when:%B %Y}"


def index_text(speaker: str, said_at: datetime | date | str | None, text: str) -> str:
    """What the lexical index holds for a turn: "Caroline (8 May 2023): text", as the window shows it.
    The day lets "in May 2023" match; on LoCoMo's tuning conversations the text alone recalled about
    0.01 less at 37 turns (the speaker's name is not searched for: see lexical_query)."""
    day = said_on(said_at)
    return f"{speaker} ({day}): {text}" if day else f"{speaker}: {text}"


def embedding_text(speaker: str, said_at: datetime | date | str | None, text: str, previous: str | None) -> str:
    """What the embedder embeds for a turn: its index text and the turn it answers. A reply ("Yes, last
    Friday!") says little alone. With it, and the question embedded as vector_query, WordLlama's vector
    leg alone recalls 0.70 of LoCoMo's held-out evidence at 37 turns, against 0.58 without both."""
    own = index_text(speaker, said_at, text)
    return f"{own} (replying to: {previous})" if previous else own


def lexical_query(question: str, speakers: Iterable[str]) -> str:
    """What to hand the lexical leg: the question without the names of the speakers it names ("When did
    Caroline go ..." searches "When did go ..."). In a tenant's index a person's name is a rare word whose
    BM25 weight swamps the question's content words, and turns by that speaker fill the top N whatever
    they say; the ranker weighs the speaker instead. `speakers` are the speakers in the caller's scope."""
    text = question
    for name in sorted(_names(speakers), key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?:'s|\u2019s)?(?!\w)", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split()) if text.strip(" ?!.,;:'\"") else question


def vector_query(question: str) -> str:
    """What to embed for the vector leg: the question's content words (query_terms). WordLlama averages
    token vectors, so "when", "did", "the" would pull the average towards every turn."""
    words = query_terms(question).words
    return " ".join(words) if words else question


#: a question asking when something happened or how long it lasted
_WHEN = re.compile(
    r"\b(when|how long|since when|what (year|month|day|date|time)|which (year|month|day))\b", re.IGNORECASE
)
#: a turn that says when (relative or absolute)
_TIME = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|last|next|ago|recently|week|weekend|month|year"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|january|february|march|april|may|june|july|august|september|october|november|december|\d{4})\b",
    re.IGNORECASE,
)


def rank_turns(
    question: str,
    lexical: Sequence[Candidate],
    vector: Sequence[Candidate],
    neighbours: NeighbourSource = None,
    weights: RecallWeights = WEIGHTS,
) -> Recall:
    """Rank the candidates of `question` and the turns around the best of them, best first.

    `lexical` and `vector` are each leg's top-N in the caller's scope, best first (N of 100-200 is
    enough on LoCoMo). `neighbours` gives the turns within `weights.window` of the `expand_top` best
    candidates: a callback is called once with the ids it should fetch."""
    turns, own, labels = _own_scores(lexical, vector, weights)
    if not turns:
        return Recall([])
    fetched = _expand(turns, own, neighbours, weights)
    for turn in fetched:
        turns.setdefault(turn.id, turn)
    named = _named_speakers(question, {t.speaker for t in turns.values()})
    when = bool(weights.temporal) and bool(_WHEN.search(question))
    strength = _conversation_strength(own, weights.conversation_top)
    scored: list[tuple[float, TurnId, str]] = []
    for tid, turn in turns.items():
        conv, i = tid
        before, after = own.get((conv, i - 1), 0.0), own.get((conv, i + 1), 0.0)
        score = own.get(tid, 0.0) + weights.previous * before + weights.following * after
        if weights.second:
            score += weights.second * (own.get((conv, i - 2), 0.0) + own.get((conv, i + 2), 0.0))
        score += weights.conversation * strength.get(conv, 0.0)
        if named and turn.speaker.casefold() not in named:
            score *= weights.other_speaker
        if when and _TIME.search(turn.text):
            score *= 1.0 + weights.temporal
        reason = labels.get(tid) or _neighbour_reason(i, before, after, weights)
        scored.append((score, tid, reason))
    scored.sort(key=lambda s: (-s[0], s[1]))
    top = scored[0][0] if scored and scored[0][0] > 0 else 1.0
    ranked = [RankedTurn(turns[tid], max(0.0, min(1.0, score / top)), reason) for score, tid, reason in scored]
    listed = {c.id for c in lexical} | {c.id for c in vector}
    return Recall(ranked, [r.id for r in ranked if r.id not in listed])


def _own_scores(
    lexical: Sequence[Candidate], vector: Sequence[Candidate], weights: RecallWeights
) -> tuple[dict[TurnId, Candidate], dict[TurnId, float], dict[TurnId, str]]:
    """Each candidate's turn, its own score (its legs fused) and the label saying which legs found it."""
    if weights.fusion not in ("convex", "rrf"):
        raise ValueError(f"fusion must be 'convex' or 'rrf', got {weights.fusion!r}")
    turns: dict[TurnId, Candidate] = {}
    own: dict[TurnId, float] = {}
    ranks: dict[TurnId, dict[str, int]] = {}
    legs = (("lexical", lexical, 1.0 - weights.vector), ("vector", vector, weights.vector))
    for leg, candidates, weight in legs:
        values = [_leg_value(c, leg, n) for n, c in enumerate(candidates, start=1)]
        best = max((v for v in values if v > 0), default=0.0)
        for n, (c, value) in enumerate(zip(candidates, values, strict=True), start=1):
            if leg in ranks.get(c.id, {}):
                continue  # listed twice by one leg: the better rank stands
            turns.setdefault(c.id, c)
            ranks.setdefault(c.id, {})[leg] = _leg_rank(c, leg) or n
            if weights.fusion == "rrf":
                share = weight / (_RRF_K + ranks[c.id][leg]) * (_RRF_K + 1)
            else:
                share = weight * max(value, 0.0) / best if best > 0 else 0.0
            own[c.id] = own.get(c.id, 0.0) + share
    labels = {tid: ", ".join(f"{leg} #{rank}" for leg, rank in sorted(r.items())) for tid, r in ranks.items()}
    return turns, own, labels


def _leg_value(c: Candidate, leg: str, position: int) -> float:
    if leg == "lexical":
        return c.lexical_score if c.lexical_score is not None else 1.0 / position
    return c.cosine if c.cosine is not None else 1.0 / position


def _leg_rank(c: Candidate, leg: str) -> int | None:
    return c.lexical_rank if leg == "lexical" else c.vector_rank


def _expand(
    turns: dict[TurnId, Candidate], own: dict[TurnId, float], source: NeighbourSource, weights: RecallWeights
) -> list[Candidate]:
    """The neighbours of the best candidates that are not candidates themselves, from `source`."""
    if source is None or weights.window < 1 or weights.expand_top < 1:
        return []
    best = sorted(own, key=lambda tid: (-own[tid], tid))[: weights.expand_top]
    wanted = sorted(
        {(conv, i + d) for conv, i in best for d in range(-weights.window, weights.window + 1) if d and i + d >= 0}
        - turns.keys()
    )
    if not wanted:
        return []
    got = source(wanted) if callable(source) else source
    allowed = set(wanted)
    return [t for t in got if t.id in allowed]


def _names(speakers: Iterable[str]) -> set[str]:
    """How a question may name each speaker: the whole name and its first word (2 characters or more)."""
    out = set()
    for speaker in speakers:
        words = speaker.split()
        out |= {n for n in (" ".join(words), words[0] if words else "") if len(n) >= 2}
    return out


def _named_speakers(question: str, speakers: set[str]) -> set[str]:
    """The speakers (casefolded) the question names: the whole name or its first word, as a word."""
    return {
        speaker.casefold()
        for speaker in speakers
        if any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", question, re.IGNORECASE) for n in _names([speaker]))
    }


def _conversation_strength(own: dict[TurnId, float], top: int) -> dict[str, float]:
    """Each conversation's best `top` own scores summed, the strongest conversation's sum = 1."""
    by_conv: dict[str, list[float]] = {}
    for (conv, _), score in own.items():
        by_conv.setdefault(conv, []).append(score)
    sums = {conv: sum(sorted(scores, reverse=True)[:top]) for conv, scores in by_conv.items()}
    best = max(sums.values(), default=0.0)
    return {conv: s / best for conv, s in sums.items()} if best > 0 else {}


def _neighbour_reason(index: int, before: float, after: float, weights: RecallWeights) -> str:
    if weights.previous * before >= weights.following * after and before > 0:
        return f"after a match (turn {index - 1})"
    if after > 0:
        return f"before a match (turn {index + 1})"
    return "near a match, in a conversation that matches"
