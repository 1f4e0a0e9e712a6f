"""The embedded SQLite backend: a small pool of connections walled per tenant.

Every pooled connection gets the app_tenant() family of functions and an
authorizer that refuses any top-level statement naming a base_ table or doing
DDL. Base tables are reachable only through the tenant views and their
triggers, so even a deliberately unfiltered SELECT in manager code sees only
the bound tenant's rows (tests/test_tenant_isolation.py proves it).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import AccessDenied, BackendUnavailable, Conflict, InvalidArgument
from ..identity import Identity
from . import sqlite_schema
from .base import QueryRows, Row, ViewCatalog
from .sql_files import load_sql
from .sqlite_context import ConnectionContext, install_context_functions
from .sqlite_pool import ConnectionPool, WalledConnection
from .sqlite_query import ReadonlyQueries

DIALECT = "sqlite"
_POOL_IDLE_MAX = 8

_DENIED_ACTIONS = {
    sqlite3.SQLITE_ALTER_TABLE, sqlite3.SQLITE_ANALYZE, sqlite3.SQLITE_ATTACH,
    sqlite3.SQLITE_DETACH, sqlite3.SQLITE_PRAGMA, sqlite3.SQLITE_REINDEX,
    sqlite3.SQLITE_CREATE_INDEX, sqlite3.SQLITE_CREATE_TABLE, sqlite3.SQLITE_CREATE_TEMP_INDEX,
    sqlite3.SQLITE_CREATE_TEMP_TABLE, sqlite3.SQLITE_CREATE_TEMP_TRIGGER,
    sqlite3.SQLITE_CREATE_TEMP_VIEW, sqlite3.SQLITE_CREATE_TRIGGER, sqlite3.SQLITE_CREATE_VIEW,
    sqlite3.SQLITE_CREATE_VTABLE, sqlite3.SQLITE_DROP_INDEX, sqlite3.SQLITE_DROP_TABLE,
    sqlite3.SQLITE_DROP_TEMP_INDEX, sqlite3.SQLITE_DROP_TEMP_TABLE,
    sqlite3.SQLITE_DROP_TEMP_TRIGGER, sqlite3.SQLITE_DROP_TEMP_VIEW, sqlite3.SQLITE_DROP_TRIGGER,
    sqlite3.SQLITE_DROP_VIEW, sqlite3.SQLITE_DROP_VTABLE,
}
_TABLE_ACTIONS = {sqlite3.SQLITE_READ, sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}


# An identifier that starts with base_ (knowledge_base_chunk does not: the "_" before it is part of the name).
_NAMES_BASE_TABLE = re.compile(r"(?<![A-Za-z0-9_$\x80-\U0010ffff])base_", re.IGNORECASE)


def walled_authorizer(schema_objects: frozenset[str], fts_shadow_tables: frozenset[str] = frozenset()):
    """An authorizer that allows base_ tables only from inside a schema view or trigger.

    `source` is the inner-most view or trigger behind an access, but SQLite
    reports a CTE's name there too, so a CTE named like a real view could pose as
    one. That is why statements that name a base table at all are refused before
    they reach SQLite (refuse_base_table_names); this check is the second wall.

    FTS5 runs its own statements on its shadow tables (and `PRAGMA data_version`)
    with no view or trigger as source, so those exact names are let through: a
    walled statement still reaches the FTS table only through kb_chunk_match, and
    its text may not name a shadow table (they all start with base_). Issue 6.
    """

    def authorize(action: int, arg1: str | None, arg2: str | None,
                  dbname: str | None, source: str | None) -> int:
        if action in _TABLE_ACTIONS:
            if arg1 in fts_shadow_tables:
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


class SqliteSession:
    """Named statements over one checked-out connection."""

    def __init__(self, conn: sqlite3.Connection, *, walled: bool = True):
        self._conn = conn
        self._walled = walled

    def fetch_all(self, statement: str, **params: Any) -> list[Row]:
        cur = self._run(load_sql(DIALECT, statement), params)
        return [dict(r) for r in cur.fetchall()]

    def fetch_one(self, statement: str, **params: Any) -> Row | None:
        row = self._run(load_sql(DIALECT, statement), params).fetchone()
        return dict(row) if row is not None else None

    def fetch_page(self, statement: str, limit: int, **params: Any) -> tuple[list[Row], bool]:
        cur = self._run(load_sql(DIALECT, statement), params)
        rows = cur.fetchmany(limit + 1)
        return [dict(r) for r in rows[:limit]], len(rows) > limit

    def execute(self, statement: str, **params: Any) -> None:
        self._run(load_sql(DIALECT, statement), params)

    def insert(self, table: str, row: Row) -> None:
        if not table.isidentifier() or table.startswith("base_"):
            raise InvalidArgument(f"not a logical table name: {table!r}", field="table")
        cols = ", ".join(row)
        marks = ", ".join(f":{c}" for c in row)
        self._run(f"INSERT INTO {table} ({cols}) VALUES ({marks})", row)

    def raw(self, sql: str, params: dict[str, Any] | tuple = ()) -> list[Row]:
        """Run literal SQL under this session's wall. For tests and operator checks only."""
        return [dict(r) for r in self._run(sql, params).fetchall()]

    @contextmanager
    def transaction(self) -> Iterator[None]:
        # BEGIN IMMEDIATE takes the write lock up front, so a read-check-write
        # inside (e.g. "is version 1 still current?") cannot race another process.
        self._run("BEGIN IMMEDIATE", ())
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        else:
            self._run("COMMIT", ())

    def _run(self, sql: str, params: Any) -> sqlite3.Cursor:
        if self._walled:
            refuse_base_table_names(sql)
        try:
            return self._conn.execute(sql, params)
        except sqlite3.Error as exc:
            raise translate_sqlite_error(exc) from exc


def translate_sqlite_error(exc: sqlite3.Error) -> Exception:
    """Map a driver error onto the memgate error tree (the driver text stays in __cause__)."""
    text = str(exc)
    if "tenant_id differs" in text:
        return AccessDenied("write refused: the row belongs to another tenant")
    if "not authorized" in text or "prohibited" in text:
        return AccessDenied("statement refused by the tenant wall")
    if isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in text:
        return Conflict("another writer committed this version first; nothing was written",
                        hint="Read the current version and retry.")
    if "immutable" in text or "append-only" in text:
        return AccessDenied("write refused: that record cannot be changed in place")
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return BackendUnavailable("the database is busy; try again", hint="Another process holds the write lock.")
    if isinstance(exc, sqlite3.IntegrityError):
        return InvalidArgument("the record is incomplete or malformed")
    return BackendUnavailable("the database failed to run a statement")


class SqliteBackend:
    dialect = DIALECT

    def __init__(self, path: str | Path, *, create: bool = True, busy_timeout_ms: int = 5000):
        self.path = Path(path).expanduser()
        self._busy_timeout_ms = busy_timeout_ms
        self._pool = ConnectionPool(self._connect, idle_max=_POOL_IDLE_MAX)
        # execute_query's read-only, walled connections (issue 4: sqlite_query.py)
        self._queries = ReadonlyQueries(self.path, busy_timeout_ms=busy_timeout_ms)
        if not self.path.exists():
            if not create:
                raise BackendUnavailable(f"no database at {self.path}.", hint="Run `memgate init` first.")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.migrate()

    # -- connections -------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                   timeout=self._busy_timeout_ms / 1000)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.Error as exc:
            raise BackendUnavailable(f"cannot open SQLite database {self.path}",
                                     hint="Check database.path and its folder's permissions.") from exc
        return conn

    def _checkout(self) -> WalledConnection:
        pooled = self._pool.take()
        pooled.refresh_wall(self._build_wall)
        return pooled

    @staticmethod
    def _build_wall(pooled: WalledConnection) -> None:
        conn = pooled.conn
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type IN ('view', 'trigger')").fetchall()
        pooled.authorizer = walled_authorizer(frozenset(r[0] for r in rows),
                                              sqlite_schema.fts5_shadow_tables(conn))

    def _release(self, pooled: WalledConnection) -> None:
        self._pool.give(pooled)

    @contextmanager
    def session(self, identity: Identity) -> Iterator[SqliteSession]:
        pooled = self._checkout()
        ctx = pooled.context
        ctx.tenant, ctx.user, ctx.agent, ctx.thread = (
            identity.tenant, identity.user, identity.agent, identity.thread)
        try:
            yield SqliteSession(pooled.conn)
        finally:
            self._release(pooled)

    @contextmanager
    def operator_session(self) -> Iterator[SqliteSession]:
        """No tenant bound and no wall: only for operator statements in sql/sqlite/operator_*.sql."""
        conn = self._connect()
        try:
            yield SqliteSession(conn, walled=False)
        finally:
            conn.close()

    @contextmanager
    def unwalled_connection(self) -> Iterator[sqlite3.Connection]:
        """A raw connection with the context functions but no authorizer (migrations, tests)."""
        conn = self._connect()
        install_context_functions(conn, ConnectionContext())
        try:
            yield conn
        finally:
            conn.close()

    # -- schema ------------------------------------------------------------
    def migrate(self) -> tuple[int, int]:
        with self.unwalled_connection() as conn:
            return sqlite_schema.migrate(conn, str(self.path))

    def check_schema(self) -> None:
        with self.unwalled_connection() as conn:
            sqlite_schema.check_schema(conn, str(self.path))

    def schema_version(self) -> int:
        with self.unwalled_connection() as conn:
            return sqlite_schema.schema_version(conn)

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"backend": "sqlite", "path": str(self.path),
                                "sqlite_version": sqlite3.sqlite_version,
                                "known_schema_version": sqlite_schema.known_version()}
        with self.unwalled_connection() as conn:
            info["schema_version"] = sqlite_schema.schema_version(conn)
            info["journal_mode"] = conn.execute("PRAGMA journal_mode").fetchone()[0]
        return info

    # -- execute_query (issue 4) ---------------------------------------------
    def run_readonly_query(self, identity: Identity, sql: str, max_rows: int, timeout_s: float) -> QueryRows:
        return self._queries.run(identity, sql, max_rows, timeout_s)

    def query_catalog(self) -> ViewCatalog:
        return self._queries.catalog()

    def close(self) -> None:
        self._pool.close()
        self._queries.close()
