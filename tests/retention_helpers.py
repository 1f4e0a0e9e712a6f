"""The marker scan: where a distinctive string still is, in every table, FTS5 shadow table and the file's bytes."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def table_hits(path: Path, marker: str) -> dict[str, int]:
    """Rows holding `marker` (as text or bytes, any case) per table of the file, FTS5 shadow tables included."""
    needle, raw = marker.lower(), marker.lower().encode()
    hits: dict[str, int] = {}
    conn = sqlite3.connect(path)
    try:
        names = [
            n
            for (n, sql) in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
            if "VIRTUAL TABLE" not in (sql or "").upper()
        ]
        for name in names:
            n = 0
            for row in conn.execute(f'SELECT * FROM "{name}"'):
                for value in row:
                    if (
                        isinstance(value, str)
                        and needle in value.lower()
                        or isinstance(value, bytes)
                        and raw in value.lower()
                    ):
                        n += 1
            if n:
                hits[name] = n
    finally:
        conn.close()
    return hits


def file_hits(path: Path, marker: str) -> int:
    """Occurrences of `marker` (any case) in the bytes of the database file and its WAL, if any."""
    raw = marker.lower().encode()
    total = 0
    for p in (path, Path(f"{path}-wal")):
        if p.exists():
            total += p.read_bytes().lower().count(raw)
    return total


def fts_matches(path: Path, marker: str) -> int:
    """Rows any tenant's lexical indexes (chunks, conversation recall) match `marker` for (read with the
    indexes themselves)."""
    conn = sqlite3.connect(path)
    try:
        slots = [s for (s,) in conn.execute("SELECT slot FROM base_kb_lexical_index").fetchall()]
        return sum(
            conn.execute(f"SELECT count(*) FROM {index}_{s} WHERE {index}_{s} MATCH ?", (marker,)).fetchone()[0]
            for s in slots
            for index in ("base_kb_fts", "base_recall_fts")
        )
    finally:
        conn.close()
