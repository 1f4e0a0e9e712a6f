"""What the lexical legs search for: a query's words, its identifiers, its adjacent word pairs, and
which words are stop words (one list for every part of memgate that drops them).

A question like "How does the while statement work?" gives the words that carry meaning (statement,
work: "while" is an English function word, and a query whose every word were one would keep them
all), and its adjacent pairs as phrases ("while statement", "statement work"): a pair keeps what
dropping the stop word lost, and the passage that says "the while statement" outranks one that only
says "statement" (a sequential-dependence query, Metzler & Croft 2005). An identifier like
`sqlite3.connect` or `__doc__` stays whole, as a phrase of its dotted parts and as each part, so the
entry that names it outranks one that only says "connect"; and it is also matched as a prefix
(`lru_cache*` finds `lru_cache_info`, `PyEval_Eval*` finds `PyEval_EvalCodeEx`), which scores below the
whole name because a chunk naming it whole matches both terms.
Both backends build their own query syntax from these terms (FTS5 on SQLite, CONTAINS on Oracle).
The term budget goes to identifiers, then words, then prefixes, then pairs: a long sentence keeps its
words and gets fewer pairs.
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

#: terms (words, identifier phrases, prefixes and pairs) passed to the lexical leg; the rest is ignored
MAX_QUERY_TERMS = 32
#: an identifier: words joined by dots (`os.path.join`); underscores are part of a word
_TOKEN = re.compile(r"\w+(?:\.\w+)*", re.UNICODE)
#: English function words that match nearly every chunk and so only add noise to an OR query
#: (question words included: a question's "how" and "what" say nothing about its topic). The one
#: list: calibrated relevance's word coverage (kb/relevance.py, through query_terms) and context assembly's question terms
#: (context/candidates.py, which adds request words such as "please") read it too.
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
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
        "may",
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
        "shall",
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
        "us",
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
    #: identifiers matched as a prefix of a longer one (("lru_cache",), ("sqlite3", "conn"))
    prefixes: tuple[tuple[str, ...], ...] = ()
    #: adjacent words of the query matched as a phrase, both not stop words at once
    pairs: tuple[tuple[str, str], ...] = ()


def query_terms(query: str) -> QueryTerms:
    raw = _TOKEN.findall(query)
    words: list[str] = []
    sequence: list[str] = []  # every word in order, stop words too, for the pairs
    phrases: list[tuple[str, ...]] = []
    prefixes: list[tuple[str, ...]] = []
    for token in raw:
        parts = tuple(p for p in token.lower().split(".") if p)
        if len(parts) > 1:
            phrases.append(parts)
        if len(token) >= 3 and (len(parts) > 1 or _IDENTIFIER.fullmatch(token)):
            prefixes.append(parts)
        words.extend(parts)
        sequence.extend(parts)
    words = list(dict.fromkeys(words))
    content = [w for w in words if w not in STOP_WORDS]
    kept = content or words
    pairs = [
        (a, b)
        for a, b in zip(sequence, sequence[1:])
        if a != b and not (a in STOP_WORDS and b in STOP_WORDS) and (a, b) not in phrases
    ]
    budget = MAX_QUERY_TERMS
    phrases = list(dict.fromkeys(phrases))[:budget]
    budget -= len(phrases)
    kept = kept[:budget]
    budget -= len(kept)
    prefixes = list(dict.fromkeys(prefixes))[:budget]
    budget -= len(prefixes)
    pairs = list(dict.fromkeys(pairs))[:budget]
    return QueryTerms(tuple(kept), tuple(phrases), tuple(prefixes), tuple(pairs))


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
