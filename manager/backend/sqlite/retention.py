"""SQLite's half of retention and erasure: the statement templates, the scope binder, the purge after.

Erased text must not stay in the file: the store's connection sets `secure_delete`, so SQLite
overwrites what it frees with zeros; after the rows go, the tenant's FTS5 indexes (chunks and
conversation recall) are merged
('optimize'), which rewrites its segments without the removed postings (a deleted row of an
external-content index only adds a delete marker until then); with `compact`, VACUUM rewrites the
file, which also drops text an earlier, ordinary update or delete left in free space; last, the WAL
is checkpointed and truncated, so no old page image survives in it.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..retention_store import RetentionSql, RetentionStore
from . import lexical
from .context import ConnectionContext, install_context_functions

#: checkpoint attempts while a reader holds the WAL (about 3 s in all), then "busy" is reported
_CHECKPOINT_TRIES = 5

SQL = RetentionSql(
    select="SELECT {columns} FROM {source} WHERE {where} ORDER BY {order} LIMIT :batch",
    in_json="IN (SELECT value FROM json_each(:{bind}))",
    delete="DELETE FROM {table} WHERE tenant_id = :tenant AND {key} {in_keys}",
    update="UPDATE {table} SET {assignments} WHERE tenant_id = :tenant AND {key} {in_keys}",
    physical=lambda table: f"base_{table}",
)


@contextmanager
def retention_store(conn: sqlite3.Connection, tenant: str, session: Any, on_purge: Any) -> Iterator[RetentionStore]:
    """A store over `conn` (unwalled, owned by the caller): the guard triggers still run, with the
    tenant bound and each batch's scope bound in turn."""
    holder = ConnectionContext(tenant=tenant)
    install_context_functions(conn, holder)
    conn.execute("PRAGMA secure_delete = ON")

    def bind_scope(user: str | None, agent: str | None, thread: str | None) -> None:
        holder.user, holder.agent, holder.thread = user, agent, thread

    def finish(compact: bool) -> dict[str, Any]:
        done: dict[str, Any] = {}
        slot = lexical.slots(conn).get(tenant)
        if slot is not None:
            optimized = []
            for index in (f"base_kb_fts_{int(slot)}", f"base_recall_fts_{int(slot)}"):  # chunks, conversation recall
                conn.execute(f"INSERT INTO {index} ({index}) VALUES ('optimize')")
                optimized.append(index)
            done["fts_optimized"] = ", ".join(optimized)
        if compact:
            conn.execute("VACUUM")
            done["vacuum"] = True
        for attempt in range(_CHECKPOINT_TRIES):  # a reader may hold the WAL for a moment
            busy, frames, moved = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if not busy:
                break
            time.sleep(0.2 * (attempt + 1))
        done["wal_checkpoint"] = "complete" if not busy else f"busy ({moved} of {frames} frames copied)"
        on_purge(tenant)
        return done

    yield RetentionStore(session, tenant, SQL, bind_scope, finish)
