"""execute_query's reviewed views, built as TEMP views on each read-only query connection.

The names a query may read are listed in sql/sqlite/query_views.sql. On the query
connection each is a TEMP view, and SQLite resolves an unqualified name to temp before
main, so there `entity_memory` means the reviewed view: the walled view main.entity_memory
(the tenant's rows in the caller's scope) cut to the rows current at app_now(), the
call's evaluation time. Versioned tables also get `<table>_history`, every version with a
computed status. The manager's own connections never see these views: they read
main.<table>, every version, and pass their own `:now`.

This is the SQLite shape of what the design gives Oracle: a read-only account whose
names resolve to reviewed views. Admission refuses schema-qualified names (main.x), and
the query authorizer lets main's views be read only from inside a reviewed view. (A CTE
named like a reviewed view can pose as one to the authorizer, query.py says how; behind
admission's check, such a CTE over main.<table> would still reach only the caller's own
rows, every version, never another scope's.)
"""

from __future__ import annotations

import sqlite3

from ..base import ViewCatalog
from ..sql_files import load_sql
from .schema import run_script

__all__ = ["build_query_views"]

#: bookkeeping columns the reviewed views leave out: the lexical index's rowid and a chunk's
#: character offsets in its document mean nothing to a query, and the tool description the
#: catalog becomes is sent to the model on every turn (so a candidate shows its decision only)
_INTERNAL_COLUMNS = {
    "knowledge_base_chunk": frozenset({"seq", "char_start", "char_end"}),
    # a window's session key (a hash of the caller's client) and the window an event belongs to: the
    # bookkeeping of windows, which a model reads through show_manifest; the conversation and the
    # speaker stay
    "conversation_memory": frozenset({"session_id", "window_id"}),
    # the gate's bookkeeping: the hash duplicates are found by, which policy version and assessor
    # decided (memgate candidates show has them), when and by whom a review decided
    "memory_candidate": frozenset(
        {
            "scope",
            "subject",
            "predicate",
            "content_hash",
            "evidence_json",
            "record_type",
            "assessor",
            "policy_version",
            "reassess",
            "decided_by",
            "decided_at",
        }
    ),
}


def build_query_views(conn: sqlite3.Connection) -> tuple[ViewCatalog, frozenset[str]]:
    """(Re)create the reviewed TEMP views; returns their catalog and the main views they read.

    Runs with the authorizer lifted. The connection is `mode=ro`, but its temp schema is
    its own; `query_only` is lifted for the build and restored even when the build fails.
    """
    conn.execute("PRAGMA query_only = 0")
    try:
        for (name,) in conn.execute("SELECT name FROM sqlite_temp_master WHERE type = 'view'").fetchall():
            conn.execute(f'DROP VIEW temp."{name}"')
        behind = []
        for table, claim in conn.execute(load_sql("sqlite", "query_views")).fetchall():
            internal = _INTERNAL_COLUMNS.get(table, frozenset())
            columns = [
                r[1] for r in conn.execute(f"PRAGMA main.table_info({table})").fetchall() if r[1] not in internal
            ]
            if not columns:
                continue  # a schema without this table yet: nothing to review
            template = "query_view_versioned" if claim else "query_view_current"
            same_claim = " AND ".join(f"o.{k} = t.{k}" for k in claim.split()) if claim else ""
            # rows written after the evaluation time did not exist then (as_of reads a past moment)
            written = "created_at <= app_now()" if "created_at" in columns else "1"
            run_script(
                conn,
                load_sql("sqlite", template).format(
                    table=table,
                    columns=", ".join(columns),
                    same_claim=same_claim,
                    written=written,
                    t_written=f"t.{written}" if written != "1" else "1",
                    o_written=f"o.{written}" if written != "1" else "1",
                ),
            )
            behind.append(table)
    finally:
        conn.execute("PRAGMA query_only = 1")
    catalog: dict[str, list[tuple[str, str | None]]] = {}
    for view, column, declared in conn.execute(load_sql("sqlite", "query_catalog")):
        catalog.setdefault(view, []).append((column, declared or None))
    return {v: tuple(cols) for v, cols in catalog.items()}, frozenset(behind)
