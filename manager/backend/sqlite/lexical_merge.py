"""Keeping a tenant's lexical indexes merged: their FTS5 segments counted, and merged a bounded step at a time.

An FTS5 index is a set of segments (b-trees); every transaction that writes to it adds one, and FTS5
folds them together only now and then (its automerge and crisismerge settings, set in the index
templates). A query looks each of its terms up in every segment, so an index of many segments costs
more to read than the same index merged into one (docs/benchmarks.md, "Lexical indexes").

`merge_tenant` merges a tenant's two indexes into one segment each, as FTS5's 'optimize' does, but in
steps of about `pages` leaf pages, each its own short write transaction (FTS5's ('merge', -N) command:
https://www.sqlite.org/fts5.html, "The 'merge' Command"), so turns and chunks written meanwhile wait
for one step at most, never for the whole index. `memgate optimize` runs it, and `memgate turn import`
after a load.

`segments` reads an index's structure record, the row of `<index>_data` with id 10 (FTS5_STRUCTURE_ROWID
in SQLite's ext/fts5/fts5_index.c): a 4-byte cookie, [a 4-byte marker of the newer format], then
varints: levels, segments, write counter, and per level its merge state, its segment count and each
segment's id and first and last leaf page.
"""

from __future__ import annotations

import sqlite3

from ...limits import LEXICAL_MERGE_PAGES
from . import lexical

__all__ = ["DEFAULT_PAGES", "index_names", "merge_index", "merge_tenant", "segments"]

#: the rowid of an FTS5 index's structure record in its <index>_data table
STRUCTURE_ROWID = 10
#: the marker after the cookie of a structure record in FTS5's second format (SQLite 3.43 and later)
_V2_MARKER = b"\xff\x00\x00\x01"
#: leaf pages merged per step, one transaction each
DEFAULT_PAGES = LEXICAL_MERGE_PAGES


def index_names(slot: int) -> tuple[str, str]:
    """The tenant's chunk index and recall index, for its slot."""
    return f"base_kb_fts_{int(slot)}", f"base_recall_fts_{int(slot)}"


def segments(conn: sqlite3.Connection, index: str) -> int:
    """How many segments the FTS5 index `index` holds now (0: empty)."""
    row = conn.execute(f"SELECT block FROM main.{index}_data WHERE id = ?", (STRUCTURE_ROWID,)).fetchone()
    if row is None:
        return 0
    block = bytes(row[0])
    at = 8 if block[4:8] == _V2_MARKER else 4
    _levels, at = _varint(block, at)
    count, _ = _varint(block, at)
    return count


def merge_index(conn: sqlite3.Connection, index: str, pages: int = DEFAULT_PAGES) -> int:
    """Merge `index` into one segment, `pages` leaf pages per transaction; returns the steps that did work."""
    if pages < 1:
        raise ValueError(f"pages must be at least 1, got {pages}")
    steps = 0
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            before = conn.total_changes
            conn.execute(f"INSERT INTO main.{index} ({index}, rank) VALUES ('merge', ?)", (-pages,))
            worked = conn.total_changes - before >= 2  # fewer: nothing left to merge (FTS5's documented test)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if not worked:
            return steps
        steps += 1


def merge_tenant(conn: sqlite3.Connection, tenant: str, pages: int = DEFAULT_PAGES) -> dict[str, tuple[int, int]]:
    """Merge the tenant's chunk and recall indexes (none: it has no index yet); index -> (segments before,
    after). `conn` is an operator connection outside a transaction."""
    slot = lexical.slots(conn).get(tenant)
    if slot is None:
        return {}
    done = {}
    for index in index_names(slot):
        before = segments(conn, index)
        merge_index(conn, index, pages)
        done[index] = (before, segments(conn, index))
    return done


def _varint(block: bytes, at: int) -> tuple[int, int]:
    """SQLite's varint at `at` (big-endian, 7 bits a byte, the ninth byte whole); (value, next offset)."""
    value = 0
    for i in range(9):
        byte = block[at]
        at += 1
        if i == 8:
            return (value << 8) | byte, at
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at
    raise AssertionError("unreachable")
