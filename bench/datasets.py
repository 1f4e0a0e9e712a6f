"""Retrieval test collections read from installed packages (nothing is downloaded).

lee: the Lee, Pincombe & Welsh (2005) corpus, "An empirical evaluation of models of text
document similarity" (CogSci 2005): 50 ABC news documents, each pair rated for similarity
by about 10 people (mean rating scaled to 0..1), plus 300 background documents from the
same source. gensim ships it as test data (gensim/test/test_data/lee.cor,
lee_background.cor, similarities0-1.txt). It is a document-similarity set, not a
query set, so it is recast here as related-document retrieval: the query is a document's
first sentence, the collection is the other 49 rated documents plus the 300 background
documents (unrated, so counted as not relevant, as TREC counts unjudged documents), and
a rated document is relevant with grade 2 when its mean similarity to the query's
document is >= 0.75, grade 1 when >= 0.5. Queries with no relevant document are skipped.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Collection", "lee", "lee_data_dir"]


@dataclass(frozen=True)
class Collection:
    name: str
    docs: dict[str, str]
    queries: dict[str, str]
    #: query id -> {doc id: grade}
    qrels: dict[str, dict[str, int]]
    #: query id -> the doc id the query was taken from (left out of that query's run)
    source_doc: dict[str, str]


def lee_data_dir() -> Path:
    """gensim's test_data folder, found without importing gensim (which would need scipy)."""
    spec = importlib.util.find_spec("gensim")
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "test" / "test_data"
        if (folder / "lee.cor").is_file() and (folder / "similarities0-1.txt").is_file():
            return folder
    raise FileNotFoundError(
        "the Lee corpus ships in the gensim wheel, which is not installed. Install it: pip install -e '.[bench]'"
    )


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")


def _first_sentence(text: str) -> str:
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]


def lee(strict: float = 0.75, loose: float = 0.5) -> Collection:
    folder = lee_data_dir()
    rated = (folder / "lee.cor").read_text(encoding="latin-1").splitlines()
    background = (folder / "lee_background.cor").read_text(encoding="latin-1").splitlines()
    rated = [t.strip() for t in rated if t.strip()]
    background = [t.strip() for t in background if t.strip()]
    rows = [
        [float(x) for x in line.split()]
        for line in (folder / "similarities0-1.txt").read_text().splitlines()
        if line.strip()
    ]
    n = len(rated)
    if len(rows) != n or any(len(r) != n for r in rows):
        raise ValueError(f"expected a {n}x{n} similarity matrix in {folder / 'similarities0-1.txt'}")
    docs = {f"lee-{i:02d}": t for i, t in enumerate(rated)}
    docs.update({f"bg-{i:03d}": t for i, t in enumerate(background)})
    queries, qrels, source = {}, {}, {}
    for i in range(n):
        judged = {}
        for j in range(n):
            if j == i:
                continue
            sim = max(rows[i][j], rows[j][i])  # the file holds the upper triangle only
            if sim >= loose:
                judged[f"lee-{j:02d}"] = 2 if sim >= strict else 1
        if judged:
            qid = f"q{i:02d}"
            queries[qid] = _first_sentence(rated[i])
            qrels[qid] = judged
            source[qid] = f"lee-{i:02d}"
    return Collection("lee", docs, queries, qrels, source)
