"""The tenant and scope wall on walled SQLite connections: the authorizer, the base-name text check, error mapping.

Every walled connection refuses any top-level statement that names a base_ table or
does DDL; base tables are reachable only through the tenant views and their triggers.
Driver errors become memgate errors here, once, with the driver text kept in __cause__.
"""

from __future__ import annotations

import re
import sqlite3

from ...errors import AccessDenied, BackendUnavailable, Conflict, DatabaseBusy, InvalidArgument

__all__ = ["refuse_base_table_names", "translate_sqlite_error", "walled_authorizer"]

_DENIED_ACTIONS = {
    sqlite3.SQLITE_ALTER_TABLE,
    sqlite3.SQLITE_ANALYZE,
    sqlite3.SQLITE_ATTACH,
    sqlite3.SQLITE_DETACH,
    sqlite3.SQLITE_PRAGMA,
    sqlite3.SQLITE_REINDEX,
    sqlite3.SQLITE_CREATE_INDEX,
    sqlite3.SQLITE_CREATE_TABLE,
    sqlite3.SQLITE_CREATE_TEMP_INDEX,
    sqlite3.SQLITE_CREATE_TEMP_TABLE,
    sqlite3.SQLITE_CREATE_TEMP_TRIGGER,
    sqlite3.SQLITE_CREATE_TEMP_VIEW,
    sqlite3.SQLITE_CREATE_TRIGGER,
    sqlite3.SQLITE_CREATE_VIEW,
    sqlite3.SQLITE_CREATE_VTABLE,
    sqlite3.SQLITE_DROP_INDEX,
    sqlite3.SQLITE_DROP_TABLE,
    sqlite3.SQLITE_DROP_TEMP_INDEX,
    sqlite3.SQLITE_DROP_TEMP_TABLE,
    sqlite3.SQLITE_DROP_TEMP_TRIGGER,
    sqlite3.SQLITE_DROP_TEMP_VIEW,
    sqlite3.SQLITE_DROP_TRIGGER,
    sqlite3.SQLITE_DROP_VIEW,
    sqlite3.SQLITE_DROP_VTABLE,
}
_TABLE_ACTIONS = {sqlite3.SQLITE_READ, sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}


# An identifier that starts with base_ (knowledge_base_chunk does not: the "_" before it is part of the name).
_NAMES_BASE_TABLE = re.compile(r"(?<![A-Za-z0-9_$\x80-\U0010ffff])base_", re.IGNORECASE)


def walled_authorizer(
    schema_objects: frozenset[str],
    fts_shadow_tables: frozenset[str] = frozenset(),
    fts_tables: frozenset[str] = frozenset(),
):
    """An authorizer that allows base_ tables only from inside a schema view or trigger.

    `source` is the inner-most view or trigger behind an access, but SQLite
    reports a CTE's name there too, so a CTE named like a real view could pose as
    one. That is why statements that name a base table at all are refused before
    they reach SQLite (refuse_base_table_names); this check is the second wall.

    FTS5 runs its own statements on its shadow tables (and `PRAGMA data_version`)
    with no view or trigger as source, so those exact names are let through: a
    walled statement still reaches the FTS table only through kb_chunk_match, and
    its text may not name a shadow table (they all start with base_). For the same reason FTS5's
    sorter (a statement ordered by rank) may read the rowid, rank and hidden column of an FTS5
    table in `fts_tables` with no source: it runs `SELECT rowid, rank FROM <table> ORDER BY
    bm25(<table>)` itself, under the outer statement's MATCH. That opens no more than the shadow
    tables already do; the text check refuses every walled statement that names either.
    """
    fts_sorter_columns = {name: frozenset({"ROWID", "rank", name}) for name in fts_tables}

    def authorize(action: int, arg1: str | None, arg2: str | None, dbname: str | None, source: str | None) -> int:
        if action in _TABLE_ACTIONS:
            if arg1 in fts_shadow_tables:
                return sqlite3.SQLITE_OK
            if action == sqlite3.SQLITE_READ and source is None and arg2 in fts_sorter_columns.get(arg1, ()):
                return sqlite3.SQLITE_OK
            if arg1 and arg1.lower().startswith("base_") and (source is None or source not in schema_objects):
                return sqlite3.SQLITE_DENY
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA and arg1 == "data_version" and arg2 is None:
            return sqlite3.SQLITE_OK
        if action in _DENIED_ACTIONS:
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    return authorize


def refuse_base_table_names(sql: str) -> None:
    """Refuse SQL text that names a base_ table.

    SQLite has no dynamic SQL and no identifier escapes beyond quoting, so a
    statement can reach a base table only by naming it in its text or through a
    view or trigger in the schema, which walled connections cannot create.
    """
    if _NAMES_BASE_TABLE.search(sql):
        raise AccessDenied("statement refused by the tenant wall: it names a base table")


def translate_sqlite_error(exc: sqlite3.Error) -> Exception:
    """Map a driver error onto the memgate error tree (the driver text stays in __cause__)."""
    text = str(exc)
    if "tenant_id differs" in text:
        return AccessDenied("write refused: the row belongs to another tenant")
    if "scoped to another" in text:
        return AccessDenied("write refused: the row is scoped to another user, agent or thread")
    if "not authorized" in text or "prohibited" in text:
        return AccessDenied("statement refused by the tenant wall")
    if isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in text:
        return Conflict(
            "another writer committed this version first; nothing was written",
            hint="Read the current version and retry.",
        )
    if "no lexical index" in text:
        return BackendUnavailable(
            "the tenant has no lexical index, so its chunks cannot be written",
            hint="Open a session for the tenant (any memgate command) or run `memgate init`.",
        )
    if "immutable" in text or "append-only" in text:
        return AccessDenied("write refused: that record cannot be changed in place")
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return DatabaseBusy("the database is busy; try again", hint="Another process holds the write lock.")
    if isinstance(exc, sqlite3.IntegrityError):
        return InvalidArgument("the record is incomplete or malformed")
    return BackendUnavailable("the database failed to run a statement")
