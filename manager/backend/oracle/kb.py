"""The knowledge-base legs on Oracle: an Oracle Text query expression, and vectors in the database.

Oracle Text reads CONTAINS' second argument as a query language with reserved words
(AND, NEAR, ABOUT, ...) and characters (`, & = ? - ; ~ | $ ! > * { } \\ ( ) [ ]`). Each
query word is taken as a run of letters and digits only, so it holds none of them, and
is wrapped in braces, which escape what they enclose ("Everything within a set of braces
in considered part of the escape sequence", Oracle Text Reference, Special Characters in
Oracle Text Queries), so even a word like `near` is a plain word. The words are joined
with ACCUM: any word matches and more matched words score higher, as SQLite's
`"a" OR "b"` with BM25. The terms are SQLite's (manager/backend/query_terms.py): stop words left
out unless every word is one, and an identifier (`sqlite3.connect`, `lru_cache`, which this lexer
splits at the dot and the underscore) also as the phrase of its parts, `{sqlite3 connect}`, and as a
prefix, `{sqlite3} connect%` (a wildcard escaped by braces would be a literal `%`, so the last part
stands bare: it is letters and digits only, and a part that is one of Oracle Text's reserved words gets
no prefix term); the query's adjacent word pairs are phrases too, `{while statement}`.
"""

from __future__ import annotations

import re

import numpy as np

from ..query_terms import MAX_QUERY_TERMS, query_terms

__all__ = ["MAX_QUERY_TERMS", "term_expression", "text_expression", "unit_rows"]

# Letters and digits only (no "_": Oracle Text's default lexer treats it as a word break anyway).
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
#: Oracle Text's reserved words (Oracle Text Reference, Reserved Words and Characters): never left bare
_RESERVED = frozenset(
    [
        "about",
        "accum",
        "and",
        "bt",
        "btg",
        "bti",
        "btp",
        "equiv",
        "fuzzy",
        "haspath",
        "inpath",
        "mdata",
        "minus",
        "near",
        "not",
        "nt",
        "ntg",
        "nti",
        "ntp",
        "or",
        "pt",
        "rt",
        "sqe",
        "syn",
        "tr",
        "trsyn",
        "tt",
        "within",
    ]
)
#: a prefix shorter than this would expand to too many words
_MIN_PREFIX = 3


def text_expression(query: str) -> str | None:
    """A CONTAINS expression matching any word of `query`, no word read as query syntax; None if none."""
    terms = query_terms(query)
    braced: list[str] = []
    for term in [" ".join(p) for p in terms.phrases] + list(terms.words):
        parts = [w.lower() for w in _WORD.findall(term)]
        if len(parts) > 1:
            braced.append(" ".join(parts))  # a phrase: the lexer splits identifiers at . and _
        braced.extend(parts)
    out = [f"{{{w}}}" for w in dict.fromkeys(braced)]
    for prefix in terms.prefixes:
        parts = [w.lower() for w in _WORD.findall(" ".join(prefix))]
        if parts and len(parts[-1]) >= _MIN_PREFIX and parts[-1] not in _RESERVED:
            out.append(" ".join([f"{{{w}}}" for w in parts[:-1]] + [f"{parts[-1]}%"]))
    for pair in terms.pairs:
        parts = [w.lower() for w in _WORD.findall(" ".join(pair))]
        if len(parts) > 1:
            out.append(f"{{{' '.join(parts)}}}")
    return " ACCUM ".join(list(dict.fromkeys(out))[:MAX_QUERY_TERMS]) or None


def term_expression(word: str) -> str | None:
    """One query word as CONTAINS matches it: braced, a phrase of its parts when this lexer splits it
    (`lru_cache` -> `{lru cache}`); None for a word with no letter or digit."""
    parts = [w.lower() for w in _WORD.findall(word)]
    return f"{{{' '.join(parts)}}}" if parts else None


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as the local embedders return them."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
