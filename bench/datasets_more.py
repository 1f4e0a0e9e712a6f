"""Two more judged collections, of other kinds than Lee, read from files Python itself and Debian install.

pydoc: question -> section over the Python Language Reference. CPython ships the reference's
topics as plain text in its standard library (pydoc_data/topics.py, in every Python install, e.g.
Debian's libpython3.X-stdlib; `help('assignment')` prints one), so the collection follows the
Python that runs the bench. Each topic is split at its reST headings
into sections; a section's text is its body without its heading. A heading that names exactly one
section becomes a question by a fixed template ("The assert statement" -> "How does the assert
statement work?", "Augmented assignment statements" -> "How do augmented assignment statements
work?", "Slicings" -> "What are slicings?"), and that section is its one relevant document (grade
2). Sections of fewer than 40 words are left out (and so are their headings' questions).

news: short identifier queries over a changelog. CPython's NEWS (Debian's python3.X package
installs it as /usr/share/doc/python3.X/NEWS.gz) holds one bullet per change, naming the
functions, classes and modules it touches in reST roles (:func:`os.path.join`). The collection
is the entries of the 3.X releases (alpha 1 to the last bug-fix release the file holds); a query
is an identifier named in a role by 2 to 8 entries (dotted or with an underscore, so that it is an
identifier and not a word, e.g. `asyncio.TaskGroup`, `sys.exc_info`); up to 150 such identifiers are
taken, spread over the alphabet. Relevant (grade 1) is every entry that names the identifier whole, in
a role, in backticks or in plain text ("Fix memory leak in PyEval_EvalCodeEx."): such an entry changes
or concerns it, whatever markup its writer chose. An entry naming only a longer identifier that
contains it (`lru_cache_info` for `lru_cache`, `os.path.join` for `os.path`) or another case of it
(`typing.final` for `typing.Final`) is not relevant. The role picks the queries (so that a query is an
API name), never the judgments. An
repeated word for word (the same fix listed under two releases) is kept once, as pydoc keeps a
repeated section once: search folds chunks of the same text into one result, so a second copy could
never be found.

Both collections' queries come from the text itself, and no query's words were chosen by looking
at any method's results. `split` gives each query to a tuning or a test half by a hash of its id,
so fusion weights can be set on one half and reported on the other.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import sys
from collections import defaultdict
from pathlib import Path

from .datasets import Collection

__all__ = ["naming", "news", "news_path", "pydoc", "question_for", "split"]

_UNDERLINE = re.compile(r"([*=\-~^\"+#])\1{2,}")
_MIN_SECTION_WORDS = 40
#: headings' first words that end in -ing but are not verbs
_NOUNS_IN_ING = frozenset({"string", "mapping", "floating", "binding", "naming", "packing"})


def split(coll: Collection, part: str) -> Collection:
    """The `tune` third or the `test` two thirds of a collection's queries (by a hash of the query id)."""
    if part not in ("tune", "test"):
        raise ValueError(f"part is tune or test, got {part!r}")

    def tune(qid: str) -> bool:
        return int(hashlib.blake2b(f"{coll.name}:{qid}".encode(), digest_size=4).hexdigest(), 16) % 3 == 0

    keep = [q for q in coll.queries if tune(q) == (part == "tune")]
    return Collection(
        f"{coll.name}/{part}",
        coll.docs,
        {q: coll.queries[q] for q in keep},
        {q: coll.qrels[q] for q in keep},
        {q: coll.source_doc[q] for q in keep},
    )


def question_for(heading: str) -> str:
    """A section heading as a question a reader would ask."""
    h = " ".join(re.sub(r"\s*\([^)]*\)", "", heading).replace("`", "").replace('"', "").split())
    low = h[0].lower() + h[1:] if h[:2] != h[:2].upper() else h
    words = low.split()
    if words[0].endswith("ing") and words[0] not in _NOUNS_IN_ING and len(words) > 1:
        return f"How do I go about {low}?"
    if words[0] == "the" and words[-1] in ("statement", "statements", "expression", "expressions", "operator"):
        verb = "do" if words[-1].endswith("s") else "does"
        return f"How {verb} {low} work?"
    if len(words) > 1 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        return f"How do {low} work?"
    if len(words) == 1 and low.endswith("s") and not low.endswith("ss"):
        return f"What are {low}?"
    return f"What is {low}?" if words[0] == "the" else f"What is {'an' if low[0] in 'aeiou' else 'a'} {low}?"


def _sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) of each reST section of one pydoc topic."""
    lines = text.splitlines()
    starts = [
        i
        for i in range(len(lines) - 1)
        if lines[i].strip()
        and _UNDERLINE.fullmatch(lines[i + 1].strip())
        and len(lines[i + 1].strip()) >= len(lines[i].strip())
    ]
    out = []
    for n, i in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        out.append((lines[i].strip(), "\n".join(lines[i + 2 : end]).strip()))
    return out


def pydoc() -> Collection:
    from pydoc_data.topics import topics

    sections: dict[str, tuple[str, str]] = {}  # doc id -> (heading, body)
    seen_bodies: set[str] = set()
    for topic in sorted(topics):
        for n, (heading, body) in enumerate(_sections(topics[topic])):
            key = " ".join(body.split())
            if len(key.split()) < _MIN_SECTION_WORDS or key in seen_bodies:
                continue  # topics repeat sections (typesseq and typesseq-mutable)
            seen_bodies.add(key)
            sections[f"{topic}#{n}"] = (heading, body)
    by_heading: dict[str, list[str]] = defaultdict(list)
    for doc_id, (heading, _) in sections.items():
        by_heading[heading.casefold()].append(doc_id)
    queries, qrels = {}, {}
    for doc_id, (heading, _) in sections.items():
        if len(by_heading[heading.casefold()]) == 1:
            qid = f"q-{doc_id}"
            queries[qid] = question_for(heading)
            qrels[qid] = {doc_id: 2}
    docs = {doc_id: body for doc_id, (_, body) in sections.items()}
    return Collection("pydoc", docs, queries, qrels, {q: "" for q in queries})


def news_path() -> Path:
    """CPython's NEWS as Debian installs it, for this Python's version first."""
    own = Path(f"/usr/share/doc/python3.{sys.version_info.minor}/NEWS.gz")
    found = [own] if own.is_file() else sorted(Path("/usr/share/doc").glob("python3.*/NEWS.gz"))
    if not found:
        raise FileNotFoundError(
            "CPython's NEWS ships in Debian's python3.X package (/usr/share/doc/python3.X/NEWS.gz), "
            "which is not installed here. Install it: apt-get install python3"
        )
    return found[0]


_RELEASE = re.compile(r"^What's New in Python (\d+\.\d+)\.")
_ROLE = re.compile(r":(?:func|meth|class|mod|exc|data|attr|const|c:func|c:macro|c:type|c:data):`~?!?([^`<>\s]+)`")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*[._][\w.]*[A-Za-z0-9_]")


def naming(docs: dict[str, str], ident: str) -> list[str]:
    """The entries that name `ident` whole, with or without markup: not inside a longer identifier
    (`lru_cache_info`, `os.path.join` for `os.path`), case as written; a sentence's full stop may follow."""
    whole = re.compile(rf"(?<![\w.]){re.escape(ident)}(?![\w]|\.\w)")
    return [doc_id for doc_id, text in docs.items() if whole.search(text)]


def news(max_queries: int = 150, min_hits: int = 2, max_hits: int = 8) -> Collection:
    with gzip.open(news_path(), "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    release = next(m.group(1) for line in lines if (m := _RELEASE.match(line)))  # the newest series
    entries: list[str] = []
    current: list[str] | None = None
    series = None
    for line in lines:
        m = _RELEASE.match(line)
        if m:
            series = m.group(1)
        if series != release:
            if m:
                current = None
            continue
        if line.startswith("- "):
            current = [line[2:]]
            entries.append("")
        elif current is not None and line.startswith("  ") and line.strip():
            current.append(line.strip())
        else:
            if current is not None:
                entries[-1] = " ".join(current)
            current = None
    if current is not None:
        entries[-1] = " ".join(current)
    docs: dict[str, str] = {}
    seen: set[str] = set()
    for i, text in enumerate(entries):
        key = " ".join(text.split()).casefold()
        if text and key not in seen:  # an entry repeated word for word (in two releases) is kept once
            seen.add(key)
            docs[f"news-{i:04d}"] = text
    named: dict[str, set[str]] = defaultdict(set)
    for doc_id, text in docs.items():
        for ident in _ROLE.findall(text):
            ident = ident.rstrip(".()")
            if _IDENTIFIER.fullmatch(ident):
                named[ident].add(doc_id)
    picked = sorted(i for i, hits in named.items() if min_hits <= len(hits) <= max_hits)
    step = max(1, len(picked) / max_queries)
    chosen = [picked[int(n * step)] for n in range(min(max_queries, len(picked)))]
    queries = {f"q{n:03d}": ident for n, ident in enumerate(chosen)}
    qrels = {qid: dict.fromkeys(sorted(naming(docs, ident)), 1) for qid, ident in queries.items()}
    return Collection(f"news-{release}", docs, queries, qrels, {q: "" for q in queries})
