"""What consolidation looks for, decided on the records' text and embeddings alone (no database).

- near duplicates: two records of one family (facts, notes, passages, summaries) in one scope with
  the same normalized text, or the same meaning by the embedder (cosine at least DUPLICATE_COSINE)
  and by their normalized words: the same content words, stemmed, in any order (so case, spacing,
  punctuation, word order, inflection and filler words may differ, a negation may not), with the
  same names and numbers. The newer `duplicates` the older and would end. Words, names and
  numbers decide where an embedder cannot: "nDCG 0.78" and "nDCG 0.92", "Alice leads search" and
  "Bob leads search", "the search service" and "the billing service" are close by any embedder
  and never duplicates.
- notes that repeat a knowledge-base passage: the note's normalized text is a run of the
  passage's, or means the same as the passage by the rule above. The note `duplicates` the passage.
- stale records: a summary or note that states a claim's earlier value (the value as a run of its
  words, with a word of the claim's subject or predicate) and not its current one, written before
  the correction: the current version `supersedes` it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np

from ..backend.query_terms import STOP_WORDS

__all__ = [
    "DUPLICATE_COSINE",
    "Claim",
    "Item",
    "Match",
    "near_duplicates",
    "normal",
    "repeats",
    "stale",
]

#: cosine from which two records with the same stemmed words, names and numbers mean the same
DUPLICATE_COSINE = 0.9
#: notes shorter than this many words are not judged repeats of a passage by their text alone
MIN_REPEAT_WORDS = 4

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
#: the one stop-word list (backend/query_terms.py); a negation is counted back in (_words)
_STOP = STOP_WORDS
#: a negation changes the meaning whatever the embedder says: it counts as a word
_NEGATION = frozenset({"not", "no", "never", "nor", "none", "cannot"})
_SUFFIXES = ("ing", "ed", "es", "s", "ly")
#: subject prefixes that name a kind of thing, not the thing ("model:helios-rag" is about helios-rag)
_GENERIC = frozenset({"model", "person", "customer", "topic", "policy", "user", "team", "project", "service"})


@dataclass(frozen=True)
class Item:
    """A stored record as consolidation reads it."""

    type: str  # entity_memory, knowledge_base_document, knowledge_base_chunk, summarization_memory
    family: str  # fact, note, passage, summary
    id: str
    version: int
    text: str
    created_at: str
    #: a passage's document (two passages of one document are not duplicates of each other)
    document_id: str | None = None
    vector: np.ndarray | None = None


@dataclass(frozen=True)
class Claim:
    """A claim's current version and the value it replaced."""

    id: str
    version: int
    subject: str
    predicate: str
    value: str
    old_value: str
    corrected_at: str


@dataclass(frozen=True)
class Match:
    reason: str  # near_duplicate, repeats_kb, stale
    relation: str  # duplicates, supersedes
    source: Item | Claim  # the link's from end
    target: Item  # the link's to end
    retire: Item  # the end that would end
    score: float
    detail: str


def normal(text: str) -> str:
    """Case, width and punctuation folded, numbers kept whole ("0.78" and "1,000" stay one token; the full
    stop of "is 0.78." is punctuation, not part of the number)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[.,](?!\d)|(?<!\d)[.,]|[^\w.,]+", " ", folded).split())


def _numbers(text: str) -> frozenset[str]:
    return frozenset(_NUMBER.findall(text))


_TOKEN = re.compile(r"[\w:@./-]+", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?:;]$")
#: capitalised only because they open a sentence
_OPENERS = _STOP | frozenset(
    [
        "a",
        "an",
        "as",
        "at",
        "by",
        "each",
        "every",
        "few",
        "if",
        "in",
        "it",
        "many",
        "no",
        "note",
        "of",
        "on",
        "one",
        "since",
        "so",
        "to",
        "we",
        "you",
        "he",
        "she",
        "they",
        "his",
        "her",
        "in",
        "our",
        "yes",
    ]
)


def _names(text: str) -> frozenset[str]:
    """What a record is about, beside its numbers: capitalised words (but the words that open a
    sentence for grammar's sake: The, We, In, ...) and identifiers (a colon, an underscore, a digit
    inside a word), case-folded."""
    found, opening = set(), True
    for raw in _TOKEN.findall(unicodedata.normalize("NFKC", text)):
        word = raw.strip(".,;:!?")
        if (
            word
            and (("_" in word or ":" in word or any(c.isdigit() for c in word)) and not word[0].isdigit())
            or word[:1].isupper()
            and not (opening and word.casefold() in _OPENERS)
        ):
            found.add(word.casefold())
        opening = bool(_SENTENCE_END.search(raw))
    return frozenset(found)


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _words(text: str) -> frozenset[str]:
    """The content words, stemmed (lead, leads, leading are one), negations included."""
    folded = normal(text)
    return frozenset(_stem(w) for w in _WORD.findall(folded) if w not in _STOP) | (
        _NEGATION & set(folded.replace("n't", " not").split())
    )


def _same_meaning(a: Item, b: Item, cosine: float) -> tuple[bool, str]:
    if normal(a.text) == normal(b.text):
        return True, "same normalized text"
    same = (
        cosine >= DUPLICATE_COSINE
        and _words(a.text) == _words(b.text)
        and _numbers(a.text) == _numbers(b.text)
        and _names(a.text) == _names(b.text)
    )
    return same, f"cosine {cosine:.2f}, the same words, names and numbers" if same else ""


def _cosines(items: list[Item]) -> np.ndarray:
    vectors = [np.asarray(i.vector, dtype=np.float32) for i in items]
    matrix = np.stack(vectors)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms == 0, 1, norms)
    return unit @ unit.T


def near_duplicates(items: list[Item]) -> list[Match]:
    """Pairs of one family that mean the same; each record is retired at most once (by its oldest twin)."""
    found: list[Match] = []
    for family in sorted({i.family for i in items}):
        group = sorted((i for i in items if i.family == family), key=lambda i: (i.created_at, i.id))
        if len(group) < 2:
            continue
        cos = _cosines(group) if all(i.vector is not None for i in group) else None
        retired: set[str] = set()
        for j, newer in enumerate(group):
            for k in range(j):
                older = group[k]
                if older.id in retired or (family == "passage" and older.document_id == newer.document_id):
                    continue
                cosine = float(cos[j, k]) if cos is not None else 0.0
                same, detail = _same_meaning(newer, older, cosine)
                if same:
                    found.append(
                        Match("near_duplicate", "duplicates", newer, older, newer, round(max(cosine, 0.0), 3), detail)
                    )
                    retired.add(newer.id)
                    break
    return found


def repeats(note: Item, passages: list[tuple[Item, float]]) -> Match | None:
    """The first passage (of those found for it, with their cosines) a note repeats, if any."""
    said = normal(note.text)
    for passage, cosine in passages:
        held = f" {said} " in f" {normal(passage.text)} " and len(said.split()) >= MIN_REPEAT_WORDS
        same, detail = _same_meaning(note, passage, cosine)
        if held or same:
            why = "the passage holds its text" if held else detail
            return Match("repeats_kb", "duplicates", note, passage, note, round(max(cosine, 0.0), 3), why)
    return None


def _mentions(text: str, claim: Claim) -> bool:
    """The text names the claim's subject: a word of it that is not a kind (service, model, ...)."""
    parts = {p for p in re.split(r"[:_\-\s/.]+", claim.subject.casefold()) if len(p) >= 3}
    return bool((parts - _GENERIC) & set(normal(text).split()))


def _states(text: str, value: str) -> bool:
    value = normal(value)
    return bool(value) and f" {value} " in f" {normal(text)} "


def stale(items: list[Item], claims: list[Claim]) -> list[Match]:
    """Summaries and notes written before a correction that state the earlier value, not the current."""
    found: list[Match] = []
    for item in items:
        if item.family not in ("summary", "note"):
            continue
        for claim in claims:
            if (
                item.created_at <= claim.corrected_at
                and _states(item.text, claim.old_value)
                and not _states(item.text, claim.value)
                and _mentions(item.text, claim)
            ):
                detail = f"states {claim.subject} {claim.predicate} = {claim.old_value}; now {claim.value}"
                found.append(Match("stale", "supersedes", claim, item, item, 1.0, detail[:300]))
                break
    return found
