"""How the gate reads a claim and its evidence without a model: sentences, clauses, lemmas, anchors, polarity.

A text is cut into sentences and each sentence into clauses (at `;`, `:`, commas and "but", "and"
before a new subject is not attempted: a comma or a semicolon is where English usually turns).
Each word is reduced to its lemmas (lemminflect, whose tables ship in its wheel: "led" and "leads"
are both "lead"), so a restatement in other inflections still matches. What can flip a claim's
meaning is kept apart as anchors: numbers (with a unit or the "from"/"to" they stand after), dates,
names and identifiers. A word stands in a negation's scope from the negator to the end of its
clause, or to the first preposition after a content word ("did not use bullet points in your
answers" negates using bullet points, not answers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

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

STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
        "by",
        "for",
        "from",
        "has",
        "have",
        "had",
        "he",
        "her",
        "hers",
        "him",
        "his",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "ours",
        "she",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "will",
        "with",
        "you",
        "your",
        "yours",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "than",
        "then",
        "there",
        "these",
        "those",
        "also",
        "into",
        "about",
        "after",
        "before",
        "over",
        "under",
        "more",
        "most",
        "very",
        "just",
        "can",
        "could",
        "should",
        "would",
        "may",
        "might",
        "must",
        "shall",
        "do",
        "does",
        "did",
        "so",
        "such",
        "only",
        "other",
        "same",
        "each",
        "per",
        "via",
        "if",
        "as",
        "up",
        "down",
        "out",
        "off",
        "once",
        "here",
        "us",
        "let",
        "lets",
        "please",
        "any",
        "some",
        "all",
        "every",
        "no",
        "not",
        "longer",
    ]
)
#: words that negate what follows them in their clause
NEGATORS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nobody",
        "nothing",
        "neither",
        "nor",
        "without",
        "cannot",
        "can't",
        "won't",
        "don't",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "hasn't",
        "haven't",
        "hadn't",
        "shouldn't",
        "wouldn't",
        "couldn't",
        "mustn't",
        "lacks",
        "lack",
        "lacking",
        "skip",
        "skipped",
        "avoid",
        "avoids",
        "omit",
        "exclude",
        "excluded",
    ]
)
#: two-word negators: "no longer", "rather than", "instead of"
_NEGATOR_PAIRS = {("no", "longer"), ("rather", "than"), ("instead", "of"), ("any", "more"), ("any", "longer")}
PREPOSITIONS = frozenset(
    [
        "in",
        "on",
        "at",
        "for",
        "to",
        "from",
        "by",
        "with",
        "about",
        "into",
        "onto",
        "over",
        "under",
        "during",
        "within",
        "of",
    ]
)
#: prepositions whose number keeps its direction: "from 9:30 to 10:00" is not "from 10:00 to 9:30"
_DIRECTED = frozenset(["from", "to", "before", "after", "above", "below", "than"])
MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)
WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
_CLAUSE_BREAKS = frozenset(";:,()[]!?")
#: a clause turns at these when a number or a name follows: "6 in production and 2 in staging"
_JOINS = frozenset(["and", "or", "while", "whereas"])


@lru_cache(maxsize=65_536)
def lemmas(word: str) -> frozenset[str]:
    """The word and every lemma English has for it, lower-cased ("signed": sign, signed)."""
    from lemminflect import getAllLemmas

    w = word.lower().replace("’", "'")
    found = {w}
    if w.isalpha() or "-" in w:
        for forms in getAllLemmas(w).values():
            found.update(f.lower() for f in forms)
        # the one who does it: owner, leader, manager are own, lead, manage
        for stem in (w[:-2], w[:-1]) if w.endswith("er") and len(w) > 4 else ():
            if "VERB" in getAllLemmas(stem):
                found.add(stem)
        if "-" in w:
            found.add(w.replace("-", ""))
            found.update(part for part in w.split("-") if part)
    return frozenset(found)


@lru_cache(maxsize=16_384)
def is_known_word(word: str) -> bool:
    """Whether English has a lemma for it (a name like Initech has none)."""
    from lemminflect import getAllLemmas

    return bool(getAllLemmas(word.lower()))


@lru_cache(maxsize=16_384)
def is_verb(word: str) -> bool:
    from lemminflect import getAllLemmas

    return "VERB" in getAllLemmas(word.lower()) or "AUX" in getAllLemmas(word.lower())


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

    @property
    def content(self) -> list[Word]:
        return [w for w in self.words if w.content]

    @property
    def negated(self) -> bool:
        return any(w.negated for w in self.words)

    @property
    def denies_predicate(self) -> bool:
        """Whether the negation's scope starts with a verb ("is not included", "does not support"), rather than
        an object ("instead of daily ones", "not by the team leads")."""
        scoped = [w for w in self.words if w.negated and w.content]
        return bool(scoped) and is_verb(scoped[0].low)

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
            out.append(Sentence(raw, _clauses(raw)))
    return tuple(out)


def _clauses(text: str) -> list[Clause]:
    tokens = _TOKEN.findall(text)
    clauses = [Clause()]
    negating = False
    seen_content = False
    previous = ""
    for i, token in enumerate(tokens):
        low = token.lower().replace("’", "'")
        if token in _CLAUSE_BREAKS or token == ".":
            if clauses[-1].words:
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
        elif negating and low in PREPOSITIONS and seen_content:
            negating = False
        word = Word(token, low, negating and low not in NEGATORS, i, _anchor(tokens, i, i == 0))
        if negating and word.content:
            seen_content = True
        clauses[-1].words.append(word)
        previous = low
    return [c for c in clauses if c.words]


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
    if token[0].isupper() and first and token.isalpha() and not is_known_word(token):
        return low  # a sentence that starts with a name: "Initech got ..."
    return None


def content_lemmas(text: str) -> set[str]:
    return set(_content_lemmas(text or ""))


@lru_cache(maxsize=4096)
def _content_lemmas(text: str) -> frozenset[str]:
    return frozenset(f for s in _sentences(text) for f in s.forms() if f not in STOP)


def warm() -> None:
    """Load lemminflect's tables now (a second or two), not in the first proposal's time."""
    lemmas("warming")
    is_known_word("warming")
