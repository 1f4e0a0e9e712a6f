"""LoCoMo for the recall study: its conversations as the product stores them, and each leg's candidates.

Each LoCoMo conversation is one user's history (a tenant holds all ten users); each of its sessions is a
thread of that user, its turns numbered from 1 (`D3:5` is thread S3's turn 5), said at the session's
date. A question is asked in a fresh thread, so every turn of its user is a candidate. Questions of
categories 1-4 that name evidence are kept (1,536); the evidence `dia_id`s map to turns (`D30:05` is
`D30:5`; ids naming no turn are dropped, as `D10:19` of one conversation).

The legs are built as memgate builds them: FTS5 in a temporary SQLite file with the tokenizer of the
knowledge base's lexical index (read from sql/sqlite/kb_lexical_index.sql), queried with the knowledge
base's FTS5 expression (stop words out, adjacent pairs as phrases) and cut to the user's turns before
the top N is taken; the vector leg is the exact cosine of the embedded question against the user's
turns. LoCoMo is read from the zip (never committed; see ../shared/data/README.md).
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from memgate.manager.backend.query_terms import STOP_WORDS
from memgate.manager.backend.sql_files import load_sql
from memgate.manager.backend.sqlite.kb import fts_expression
from memgate.manager.conversations.recall_rank import (
    Candidate,
    TurnId,
    embedding_text,
    index_text,
    lexical_query,
    vector_query,
)

__all__ = ["Legs", "LoCoMo", "Question", "Turn", "bm25_peer", "default_zip", "load_locomo"]

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Turn:
    user: int
    thread: str
    index: int
    speaker: str
    text: str
    said_at: datetime

    @property
    def id(self) -> TurnId:
        return (self.thread, self.index)

    def candidate(self, **scores) -> Candidate:
        return Candidate(self.thread, self.index, self.speaker, self.text, self.said_at, **scores)

    def rendered(self) -> str:
        """How the window shows it: "Caroline (8 May 2023): text"."""
        return index_text(self.speaker, self.said_at, self.text)


@dataclass(frozen=True)
class Question:
    user: int
    text: str
    category: int
    evidence: frozenset[TurnId]


@dataclass
class LoCoMo:
    turns: dict[int, list[Turn]]
    questions: list[Question]


def default_zip() -> Path:
    """`../shared/data/locomo10.zip` from the repository or any folder above it."""
    for folder in Path(__file__).resolve().parents:
        path = folder / "shared" / "data" / "locomo10.zip"
        if path.is_file():
            return path
    return Path(__file__).resolve().parents[1].parent / "shared" / "data" / "locomo10.zip"


def load_locomo(path: Path) -> LoCoMo:
    """The conversations in the zip, in the order of their file numbers (26, 30, 41, ... 50)."""
    turns: dict[int, list[Turn]] = {}
    questions: list[Question] = []
    with zipfile.ZipFile(path) as z:
        names = sorted((n for n in z.namelist() if re.search(r"/\d+\.json$", n)), key=lambda n: int(Path(n).stem))
        for user, name in enumerate(names):
            data = json.loads(z.read(name))
            sessions = sorted(int(k.split("_")[1]) for k in data if re.fullmatch(r"session_\d+", k))
            mine: list[Turn] = []
            for s in sessions:
                when = datetime.strptime(data[f"session_{s}_date_time"].strip(), "%I:%M %p on %d %B, %Y")
                for n, t in enumerate(data[f"session_{s}"], start=1):
                    caption = t.get("blip_caption")
                    text = t["text"] + (f" [shares a photo: {caption}]" if caption else "")
                    mine.append(Turn(user, f"u{user}-S{s}", n, t["speaker"], text, when))
            turns[user] = mine
            by_dia = {f"D{int(t.thread.split('-S')[1])}:{t.index}": t.id for t in mine}
            for qa in data["qa"]:
                if qa.get("category") not in CATEGORIES or not qa.get("evidence"):
                    continue
                ids = {by_dia.get(_dia(part)) for e in qa["evidence"] for part in re.split(r"[;,\s]+", e)}
                questions.append(Question(user, qa["question"], qa["category"], frozenset(i for i in ids if i)))
    return LoCoMo(turns, questions)


def _dia(part: str) -> str:
    m = re.fullmatch(r"D(\d+):0*(\d+)", part.strip())
    return f"D{m[1]}:{m[2]}" if m else ""


def tokenizer() -> str:
    """The knowledge base's FTS5 tokenizer, as its index template declares it."""
    m = re.search(r"tokenize\s*=\s*'([^']+)'", load_sql("sqlite", "kb_lexical_index"))
    if not m:
        raise RuntimeError("sql/sqlite/kb_lexical_index.sql declares no tokenize = '...'")
    return m[1]


class Legs:
    """The product's fetch over one tenant holding every user: a lexical top-N, a vector top-N, neighbours."""

    def __init__(self, data: LoCoMo, embedder, folder: Path, *, context: bool = True):
        self.data, self.embedder, self.context = data, embedder, context
        #: the speakers of each user's turns (the product keeps them per scope)
        self.speakers: dict[int, list[str]] = {}
        self.db = sqlite3.connect(folder / "recall_study.sqlite3")
        self.db.execute(
            "CREATE TABLE turn (seq INTEGER PRIMARY KEY, user INTEGER, thread TEXT, idx INTEGER, speaker TEXT,"
            " said_at TEXT, text TEXT, indexed TEXT, UNIQUE (thread, idx))"
        )
        self.db.execute(
            "CREATE VIRTUAL TABLE turn_fts USING fts5(indexed, content = 'turn', content_rowid = 'seq',"
            f" tokenize = '{tokenizer()}')"
        )
        rows = [
            (t.user, t.thread, t.index, t.speaker, t.said_at.isoformat(), t.text, t.rendered())
            for user in sorted(data.turns)
            for t in data.turns[user]
        ]
        self.db.executemany(
            "INSERT INTO turn (user, thread, idx, speaker, said_at, text, indexed) VALUES (?, ?, ?, ?, ?, ?, ?)", rows
        )
        self.db.execute("INSERT INTO turn_fts (turn_fts) VALUES ('rebuild')")
        self.db.commit()
        started = time.perf_counter()
        self.vectors = {user: embedder.embed(self._embedded(turns)) for user, turns in data.turns.items()}
        self.embed_seconds = time.perf_counter() - started

    def _embedded(self, turns: Sequence[Turn]) -> list[str]:
        out = []
        for n, t in enumerate(turns):
            before = turns[n - 1] if n and turns[n - 1].thread == t.thread else None
            previous = before.text if before is not None and self.context else None
            out.append(embedding_text(t.speaker, t.said_at, t.text, previous))
        return out

    def lexical(self, q: Question, depth: int, *, names: bool = False) -> list[Candidate]:
        """The lexical top `depth`: the question without the speakers it names (`names`: with them)."""
        speakers = self.speakers.setdefault(
            q.user, [s for (s,) in self.db.execute("SELECT DISTINCT speaker FROM turn WHERE user = ?", (q.user,))]
        )
        expression = fts_expression(q.text if names else lexical_query(q.text, speakers))
        if not expression:
            return []
        rows = self.db.execute(
            "SELECT t.thread, t.idx, t.speaker, t.said_at, t.text, bm25(turn_fts) FROM turn_fts"
            " JOIN turn t ON t.seq = turn_fts.rowid WHERE turn_fts MATCH ? AND t.user = ? ORDER BY rank LIMIT ?",
            (expression, q.user, depth),
        ).fetchall()
        return [
            Candidate(thread, idx, speaker, text, said_at, lexical_rank=n, lexical_score=-bm25)
            for n, (thread, idx, speaker, said_at, text, bm25) in enumerate(rows, start=1)
        ]

    def vector(self, q: Question, depth: int) -> list[Candidate]:
        query = self.embedder.embed([vector_query(q.text) if self.context else q.text])[0]
        cosines = self.vectors[q.user] @ query
        order = np.argsort(-cosines, kind="stable")[:depth]
        turns = self.data.turns[q.user]
        return [
            turns[i].candidate(cosine=float(cosines[i]), vector_rank=n)
            for n, i in enumerate(order, start=1)
            if cosines[i] > 0
        ]

    def neighbours(self, ids: Sequence[TurnId]) -> list[Candidate]:
        """The turns with these ids (same thread, turn index +- w): one statement, as the product's fetch."""
        rows = self.db.execute(
            "SELECT thread, idx, speaker, said_at, text FROM turn"
            " WHERE (thread, idx) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))",
            (json.dumps([list(i) for i in ids]),),
        ).fetchall()
        return [Candidate(thread, idx, speaker, text, said_at) for thread, idx, speaker, said_at, text in rows]


def bm25_peer(data: LoCoMo):
    """rank_bm25 (BM25Okapi) per user over "Speaker (date): text", lower-cased words, the stop words out.

    Returns a function question -> the user's turn ids, best first (the floor the issue measures against)."""
    from rank_bm25 import BM25Okapi

    def words(text: str) -> list[str]:
        return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]

    indexes = {user: BM25Okapi([words(t.rendered()) or [""] for t in turns]) for user, turns in data.turns.items()}

    def ranked(q: Question) -> list[TurnId]:
        scores = indexes[q.user].get_scores(words(q.text))
        turns = data.turns[q.user]
        return [turns[i].id for i in np.argsort(-scores, kind="stable")]

    return ranked
