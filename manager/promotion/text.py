"""How the gate reads a claim and its evidence without a model: sentences, clauses, lemmas, anchors, polarity.

A text is cut into sentences and each sentence into clauses (at `;`, `:`, commas and "but", "and"
before a new subject is not attempted: a comma or a semicolon is where English usually turns).
Each word is reduced to its base forms by English inflection rules and a list of irregular forms
(lexicon.IRREGULAR: "led" and "leads" are both "lead"), so a restatement in other inflections still
matches; no dictionary is loaded (a lemmatiser library's tables cost 20 to 35 MB of memory). What can flip a claim's
meaning is kept apart as anchors: numbers (with a unit or the "from"/"to" they stand after), dates,
names and identifiers. A word stands in a negation's scope from the negator to the end of its
clause, or to the first preposition after a content word ("did not use bullet points in your
answers" negates using bullet points, not answers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from .lexicon import AUXILIARIES, IRREGULAR, MONTHS, NEGATORS, PREPOSITIONS, STOP, WEEKDAYS

__all__ = [
    "Clause",
    "Sentence",
    "Word",
    "content_lemmas",
    "lemmas",
    "sentences",
    "split_identifier",
]

_TOKEN = re.compile(
    r"\d{1,2}:\d{2}"  # a time of day
    r"|\d+(?:[.,]\d+)*%?"  # a number, 1,200 and 0.78 whole
    r"|[A-Za-z]+(?:[-'’][A-Za-z]+)*"  # a word, hyphens and apostrophes inside
    r"|[;:,!?.()\[\]]"  # punctuation that cuts clauses
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n+")

#: two-word negators: "no longer", "rather than", "instead of"
_NEGATOR_PAIRS = {("no", "longer"), ("rather", "than"), ("instead", "of"), ("any", "more"), ("any", "longer")}
#: prepositions whose number keeps its direction: "from 9:30 to 10:00" is not "from 10:00 to 9:30"
_DIRECTED = frozenset(["from", "to", "before", "after", "above", "below", "than"])
_CLAUSE_BREAKS = frozenset(";:,()[]!?")
#: the most content words of an opening phrase kept with the clause it opens
_OPENING = 3
#: a clause turns at these when a number or a name follows: "6 in production and 2 in staging"
_JOINS = frozenset(["and", "or", "while", "whereas"])


@lru_cache(maxsize=65_536)
def lemmas(word: str) -> frozenset[str]:
    """The word and the base forms English inflection rules give it, lower-cased: "signed" is sign, "leads" and
    "led" are lead, "summaries" is summary, "owner" is also own (the one who does it). Over-generating is
    harmless: forms are only compared with other words' forms."""
    w = word.lower().replace("’", "'")
    found = {w}
    if "-" in w:
        found.add(w.replace("-", ""))
        found.update(part for part in w.split("-") if part)
    if not w.isalpha() or len(w) < 3:
        return frozenset(found)
    if w in IRREGULAR:
        found.add(IRREGULAR[w])
    for suffix, replacements in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 2:
            stem = w[: -len(suffix)]
            found.update(stem + r for r in replacements)
            if suffix in ("ed", "ing", "er") and len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls":
                found.add(stem[:-1])  # stopped, running: stop, run
    return frozenset(found)


#: (suffix, what may stand in its place): summaries, boxes, signs; signed, included; working, making; owner
_SUFFIXES = (
    ("ies", ("y",)),
    ("ied", ("y",)),
    ("es", ("", "e")),
    ("s", ("",)),
    ("ed", ("", "e")),
    ("ing", ("", "e")),
    ("er", ("", "e")),
)


def split_identifier(text: str) -> list[str]:
    """An identifier as words: "beir_ndcg10" is beir, ndcg, 10; "model:helios-rag" is model, helios, rag."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    spaced = re.sub(r"([A-Za-z])(\d)|(\d)([A-Za-z])", lambda m: " ".join(g for g in m.groups() if g), spaced)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9.]+", spaced) if w and w != "."]


@dataclass(frozen=True)
class Word:
    text: str  # as written
    low: str
    negated: bool
    position: int
    anchor: str | None = None  # the anchor key when the word is a number, date, name or identifier
    #: for a number: the content words right after it in its clause, what it counts ("35 pickers")
    unit: frozenset[str] = frozenset()

    @property
    def forms(self) -> frozenset[str]:
        return lemmas(self.low)

    @property
    def content(self) -> bool:
        if self.anchor:
            return True
        return self.low not in STOP and self.low not in NEGATORS and (len(self.low) > 1 or self.low.isdigit())


@dataclass
class Clause:
    words: list[Word] = field(default_factory=list)
    #: its negation denies the predicate ("is not included", "does not support", "didn't use", "never"), rather
    #: than an object ("instead of daily ones", "not by the team leads", "without bullet points")
    denies_predicate: bool = False

    @property
    def content(self) -> list[Word]:
        return [w for w in self.words if w.content]

    @property
    def negated(self) -> bool:
        return any(w.negated for w in self.words)

    def forms(self) -> frozenset[str]:
        return self._forms

    @cached_property
    def _forms(self) -> frozenset[str]:  # a parsed text is shared and never changed: compute once
        return frozenset(f for w in self.content for f in w.forms)

    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass
class Sentence:
    text: str
    clauses: list[Clause]

    @property
    def words(self) -> list[Word]:
        return [w for c in self.clauses for w in c.words]

    def forms(self) -> frozenset[str]:
        return self._forms

    @cached_property
    def _forms(self) -> frozenset[str]:
        return frozenset(f for c in self.clauses for f in c.forms())

    def anchors(self) -> set[str]:
        return {w.anchor for w in self.words if w.anchor}


def sentences(text: str) -> list[Sentence]:
    """The text's sentences, each cut into clauses of words with their polarity and anchors (shared: read only)."""
    return list(_sentences(text or ""))


@lru_cache(maxsize=4096)
def _sentences(text: str) -> tuple[Sentence, ...]:
    out = []
    for raw in _SENTENCE_END.split(text):
        raw = raw.strip()
        if raw:
            out.append(Sentence(raw, _clauses(_WIKILINK.sub(r" \1 ", _JSON_RECORD.sub(_one_clause, raw)))))
    return tuple(out)


#: a flat JSON record's keys and values are one statement (an imported knowledge-graph line,
#: {"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"}): its colons and commas cut no
#: clause, and the record ends one
_JSON_RECORD = re.compile(r'\{[^{}]*"\s*:[^{}]*\}')
_JSON_PUNCTUATION = re.compile(r"[:,\[\]]")
#: a note's [[wiki link]] (basic-memory, Obsidian) names one thing: its brackets cut no clause
_WIKILINK = re.compile(r"\[\[([^\[\]]+)\]\]")


def _one_clause(record: re.Match[str]) -> str:
    return " " + _JSON_PUNCTUATION.sub(" ", record.group()[1:-1]) + " ; "


def _clauses(text: str) -> list[Clause]:
    tokens = _TOKEN.findall(text)
    clauses = [Clause()]
    negating = False
    seen_content = False
    previous = ""
    for i, token in enumerate(tokens):
        low = token.lower().replace("’", "'")
        if token in _CLAUSE_BREAKS or token == ".":
            # "After 30 days, a refund needs ...": a short opening phrase belongs to the clause it opens
            opening = token == "," and len(clauses) == 1 and len(clauses[0].content) <= _OPENING
            if clauses[-1].words and not opening:
                clauses.append(Clause())
            negating = seen_content = False
            previous = ""
            continue
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        turns = low == "but" or (low in _JOINS and following[:1].isdigit() or low in _JOINS and following[:1].isupper())
        if turns and clauses[-1].words:
            clauses.append(Clause())
            negating = seen_content = False
        if low in NEGATORS or (previous, low) in _NEGATOR_PAIRS:
            negating, seen_content = True, False
            if low.endswith("n't") or low in ("cannot", "never", "longer") or previous in AUXILIARIES:
                clauses[-1].denies_predicate = True
        elif negating and low in PREPOSITIONS and seen_content:
            negating = False
        unit = _unit(tokens, i) if token[0].isdigit() else frozenset()
        word = Word(token, low, negating and low not in NEGATORS, i, _anchor(tokens, i, i == 0), unit)
        if negating and word.content:
            seen_content = True
        clauses[-1].words.append(word)
        previous = low
    return [c for c in clauses if c.words]


#: how many content words after a number say what it counts
_UNIT_WORDS = 2


def _unit(tokens: list[str], i: int) -> frozenset[str]:
    """The lemmas of the next content words after a number, within its clause: "6 replicas in production"."""
    found: set[str] = set()
    taken = 0
    for token in tokens[i + 1 : i + 6]:
        if token in _CLAUSE_BREAKS or token == "." or token[0].isdigit():
            break
        low = token.lower()
        if low in STOP or low in PREPOSITIONS or not token[0].isalpha():
            continue
        found |= lemmas(low)
        taken += 1
        if taken == _UNIT_WORDS:
            break
    return frozenset(found)


def _anchor(tokens: list[str], i: int, first: bool) -> str | None:
    token = tokens[i]
    low = token.lower()
    before = tokens[i - 1].lower() if i else ""
    if token[0].isdigit():
        number = low.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+", low) else low
        return f"{before} {number}" if before in _DIRECTED else number
    if low in MONTHS and low != "may":
        return low
    if low == "may" and token[0] == "M" and (before.isdigit() or (i + 1 < len(tokens) and tokens[i + 1].isdigit())):
        return low
    if low in WEEKDAYS:
        return low
    if re.fullmatch(r"[A-Z]{2,}(?:-\d+)?|[A-Za-z]+-\d+", token):
        return low  # an acronym or an identifier: BEIR, SSO, TX-100
    if token[0].isupper() and not first and token.isalpha() and low != "i":
        return low
    following = tokens[i + 1] if i + 1 < len(tokens) else ""
    if first and token[0].isupper() and token.isalpha() and low not in STOP and following[:1].isupper():
        return low  # a sentence that starts with a full name: "Marco Silva leads ..."
    return None


def content_lemmas(text: str) -> set[str]:
    return set(_content_lemmas(text or ""))


@lru_cache(maxsize=4096)
def _content_lemmas(text: str) -> frozenset[str]:
    return frozenset(f for s in _sentences(text) for f in s.forms() if f not in STOP)


def warm() -> None:
    """Compile what the first proposal would (the patterns, the caches' first entries)."""
    sentences("Warming the gate's reader: it leads, it led, it did not lead.")
