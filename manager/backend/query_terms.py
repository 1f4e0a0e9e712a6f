"""What the lexical legs search for: a query's words, its identifiers, and which words are stop words.

A query like "How does the with statement work?" gives the words that carry meaning (with,
statement, work: "with" is kept because a query whose every word were a stop word would keep
them all); an identifier like `sqlite3.connect` or `__doc__` stays whole, as a phrase of its
dotted parts and as each part, so the entry that names it outranks one that only says "connect".
Both backends build their own query syntax from these terms (FTS5 on SQLite, CONTAINS on Oracle).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "MAX_QUERY_TERMS",
    "STOP_WORDS",
    "QueryTerms",
    "identifiers",
    "is_keyword_query",
    "names_exactly",
    "query_terms",
]

#: words (and identifier phrases) passed to the lexical leg; the rest of a very long query is ignored
MAX_QUERY_TERMS = 32
#: an identifier: words joined by dots (`os.path.join`); underscores are part of a word
_TOKEN = re.compile(r"\w+(?:\.\w+)*", re.UNICODE)
#: English function words that match nearly every chunk and so only add noise to an OR query
#: (question words included: a question's "how" and "what" say nothing about its topic)
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)


@dataclass(frozen=True)
class QueryTerms:
    #: single lower-cased words, stop words left out unless every word is one
    words: tuple[str, ...]
    #: dotted identifiers as their parts (("sqlite3", "connect"),), matched as a phrase
    phrases: tuple[tuple[str, ...], ...]


def query_terms(query: str) -> QueryTerms:
    tokens = [t.lower() for t in _TOKEN.findall(query)]
    words: list[str] = []
    phrases: list[tuple[str, ...]] = []
    for token in tokens:
        parts = tuple(p for p in token.split(".") if p)
        if len(parts) > 1:
            phrases.append(parts)
        words.extend(parts)
    words = list(dict.fromkeys(words))
    content = [w for w in words if w not in STOP_WORDS]
    kept = content or words
    phrases = list(dict.fromkeys(phrases))[:MAX_QUERY_TERMS]
    return QueryTerms(tuple(kept[: MAX_QUERY_TERMS - len(phrases)]), tuple(phrases))


#: a word that is an identifier, not English: dotted (`os.path`), with an underscore, or camelCase
_IDENTIFIER = re.compile(r"\w+(?:\.\w+)+|\w*_\w*|\w*[a-z][A-Z]\w*", re.UNICODE)
#: at most this many words for a query to read as a keyword look-up rather than a question
KEYWORD_QUERY_WORDS = 3


def identifiers(query: str) -> list[str]:
    """The words of `query` that are identifiers, as written (`sqlite3.connect`, `lru_cache`)."""
    words = (w.strip("?!,;:()'\"`") for w in query.split())
    return list(dict.fromkeys(w for w in words if _IDENTIFIER.fullmatch(w)))


def is_keyword_query(query: str) -> bool:
    """A short query naming an identifier (`asyncio.TaskGroup`, `lru_cache`): a look-up that exact
    words answer, where a sentence embedding of so few words says little."""
    return len(query.split()) <= KEYWORD_QUERY_WORDS and bool(identifiers(query))


def names_exactly(text: str, names: list[str]) -> bool:
    """Whether `text` holds one of `names` whole (case-insensitive, not inside a longer identifier):
    the stemmed index matches `sqlite3.connect` in `sqlite3.Connection` too."""
    return any(
        re.search(rf"(?<![\w.]){re.escape(name)}(?![\w]|\.\w)", text, re.IGNORECASE | re.UNICODE) for name in names
    )
