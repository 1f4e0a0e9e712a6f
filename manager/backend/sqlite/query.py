"""The read-only connection execute_query runs on, and its wall.

Admission (manager/query/admission.py) is the friendly first check; this is the
boundary. Each query connection is opened `mode=ro`, gets `PRAGMA query_only`,
a length limit, the reviewed views as TEMP views (query_views.py), the app_tenant()
family bound to the caller and app_now() to the call's time, and an authorizer that
allows only:

- SELECT and recursive CTEs;
- reading a reviewed view (sql/sqlite/query_views.sql, in temp); the walled main
  view behind one, and a base_ table, only from inside one (`source` is the
  inner-most view), so a query never reads main.<table>'s every version itself;
- calling an allowlisted function; app_tenant() & co. only from inside a
  reviewed view;
- reading a CTE or subquery (a name with no database that is no table, view or
  virtual-table module): its body's reads were authorized one by one.

Everything else is denied: other views and their tables, sqlite_master, PRAGMA
and pragma_* / dbstat tables, ATTACH, transactions, every write and all DDL.

SQLite reports a CTE's name as `source` too, so a CTE named like a reviewed view
could read a base table as if it were that view. SQLite cannot reach a table
without naming it in the statement text, so refuse_base_table_names (a text check)
runs first and closes that gap; the fuzz tests attack the authorizer alone too.

A progress handler ends a query at its deadline; rows are read with
fetchmany(max_rows + 1) so "more rows exist" is exact.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ...clock import now_iso
from ...errors import AccessDenied, BackendUnavailable, MemgateError, QueryRejected, QueryTimeout
from ...identity import Identity
from ..base import QueryRows, ViewCatalog
from ..sql_files import load_sql
from .context import CONTEXT_FUNCTIONS
from .dialect import SQLITE_FUNCTIONS, fold
from .pool import ConnectionPool, WalledConnection
from .query_views import build_query_views
from .wall import refuse_base_table_names

__all__ = ["QUERY_FUNCTIONS", "ReadonlyQueries", "query_authorizer"]

#: what the wall lets a query call: admission's list, plus LIKE and GLOB, which are
#: syntax to the parser but functions to SQLite's authorizer.
QUERY_FUNCTIONS: frozenset[str] = SQLITE_FUNCTIONS | {"like", "glob"}

# Longest string or blob a query may read or build. SQLite applies the limit to stored
# values too, so it must stay above anything memgate stores (KB documents are the big
# ones); below it, printf('%.*c', ...) or replace() cannot build a value that eats memory.
_VALUE_BYTES = 32 * 1024 * 1024
_SQL_BYTES = 4 * 1024 * 1024
# The deadline is checked every this many VM instructions (datasette uses 1000: ~0.1 ms).
_PROGRESS_STEPS = 1000
_POOL_IDLE_MAX = 4

# Declared types whose values are never shown: the converters below swap the value for
# a marker as SQLite hands it over, so a LOB's text never reaches a result row. The
# registration is process-wide but acts only on connections opened with detect_types,
# which in memgate is this module's query connection alone.
_LOB_TYPES = ("LOB", "BLOB", "CLOB", "NCLOB", "BFILE")
_VECTOR_TYPE = "VECTOR"


@dataclass(frozen=True, slots=True)
class _Declared:
    declared: str
    value: bytes | None  # kept for vectors only: their length gives the dimension


def _converter(declared: str, keep: bool):
    return lambda raw: _Declared(declared, raw if keep else None)


for _name in _LOB_TYPES:
    sqlite3.register_converter(_name, _converter(_name, keep=False))
sqlite3.register_converter(_VECTOR_TYPE, _converter(_VECTOR_TYPE, keep=True))

def query_authorizer(views: frozenset[str], functions: frozenset[str], known_names: frozenset[str],
                     behind: frozenset[str] = frozenset()):
    """The authorizer for query connections; names are ASCII-lower-cased. See the module docstring.

    `views` are the reviewed (temp) views, `behind` the walled main views they read.
    """
    ok, deny = sqlite3.SQLITE_OK, sqlite3.SQLITE_DENY
    context_functions = frozenset(CONTEXT_FUNCTIONS)

    def authorize(action: int, arg1: str | None, arg2: str | None,
                  dbname: str | None, source: str | None) -> int:
        if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE):
            return ok
        if action == sqlite3.SQLITE_READ:
            table, inside = fold(arg1), fold(source)
            if dbname == "temp":
                return ok if table in views else deny
            if dbname == "main":
                if inside in views and (table in behind or table.startswith("base_")):
                    return ok
                return deny
            if dbname is None and table and table not in known_names \
                    and not table.startswith(("pragma_", "sqlite_")):
                return ok  # a CTE or subquery read (some SQLite releases report them)
            return deny
        if action == sqlite3.SQLITE_FUNCTION:
            name = fold(arg2)
            if name in functions:
                return ok
            if name in context_functions and fold(source) in views:
                return ok
            return deny
        return deny

    return authorize


class ReadonlyQueries:
    """A small pool of walled read-only connections to one SQLite file."""

    def __init__(self, path: Path, *, busy_timeout_ms: int = 5000):
        self.path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._pool = ConnectionPool(self._connect, idle_max=_POOL_IDLE_MAX)

    def run(self, identity: Identity, sql: str, max_rows: int, timeout_s: float, now: str) -> QueryRows:
        """Run one read-only query as `identity`, current rows as of `now`; see the module docstring."""
        try:
            refuse_base_table_names(sql)
        except AccessDenied:
            raise _rejected("table") from None
        with self._connection() as q:
            ctx = q.context
            ctx.bind(identity, now)
            deadline = time.monotonic() + timeout_s
            q.conn.set_progress_handler(lambda: int(time.monotonic() > deadline), _PROGRESS_STEPS)
            cursor = None
            try:
                cursor = q.conn.execute(sql)
                columns = [d[0] for d in cursor.description or ()]
                fetched = cursor.fetchmany(max_rows + 1) if columns else []
            except sqlite3.Error as exc:
                raise translate_query_error(exc, timeout_s, time.monotonic() > deadline) from exc
            except (UnicodeEncodeError, ValueError):  # an unpaired surrogate, a NUL: the driver refuses
                raise _rejected("characters") from None
            finally:
                if cursor is not None:
                    cursor.close()
                q.conn.set_progress_handler(None, 0)
                ctx.clear()
        if not columns:
            raise _rejected("select-only")
        return _unwrap(columns, fetched[:max_rows], truncated=len(fetched) > max_rows)

    @contextmanager
    def walled_connection(self, identity: Identity, now: str | None = None) -> Iterator[sqlite3.Connection]:
        """The raw query connection, wall installed, no text check: for tests of the authorizer alone."""
        with self._connection() as q:
            q.context.bind(identity, now or now_iso())
            yield q.conn

    def catalog(self) -> ViewCatalog:
        """The reviewed views and their (column, declared type), as this file's schema has them."""
        with self._connection() as q:
            return q.catalog

    def close(self) -> None:
        self._pool.close()

    # -- connections -------------------------------------------------------
    @contextmanager
    def _connection(self) -> Iterator[WalledConnection]:
        q = self._pool.take()
        try:
            self._refresh_wall(q)
            yield q
        finally:
            q.conn.set_progress_handler(None, 0)
            self._pool.give(q)

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                   isolation_level=None, check_same_thread=False,
                                   timeout=self._busy_timeout_ms / 1000,
                                   detect_types=sqlite3.PARSE_DECLTYPES)
            conn.execute("PRAGMA query_only = 1")
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, _VALUE_BYTES)
            conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, _SQL_BYTES)
            conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        except sqlite3.Error as exc:
            raise BackendUnavailable(f"cannot open SQLite database {self.path} read-only for queries",
                                     hint="Check database.path and its folder's permissions.") from exc
        return conn

    @staticmethod
    def _refresh_wall(q: WalledConnection) -> None:
        """(Re)build the authorizer and catalog when the schema changed since they were built."""
        try:
            q.refresh_wall(_build_query_wall)
        except sqlite3.Error as exc:
            raise BackendUnavailable("the database failed to load the query catalog") from exc


def _build_query_wall(q: WalledConnection) -> None:
    conn = q.conn
    q.catalog, behind = build_query_views(conn)
    names = {r[0] for r in conn.execute(load_sql("sqlite", "catalog_known_names"))}
    q.authorizer = query_authorizer(frozenset(fold(v) for v in q.catalog), QUERY_FUNCTIONS,
                                    frozenset(fold(n) for n in names), frozenset(fold(t) for t in behind))


def _unwrap(columns: list[str], fetched: list[tuple], *, truncated: bool) -> QueryRows:
    """Replace converter markers by what cells.py shapes, and report each column's declared type."""
    declared: list[str | None] = [None] * len(columns)
    rows = []
    for raw in fetched:
        row = []
        for i, value in enumerate(raw):
            if isinstance(value, _Declared):
                declared[i] = value.declared
                # A LOB's value was dropped by its converter; any non-NULL value makes <LOB>.
                value = value.value if value.declared == _VECTOR_TYPE else value.declared
            row.append(value)
        rows.append(tuple(row))
    return QueryRows(columns=columns, declared_types=declared, rows=rows, truncated=truncated)


# -- errors ------------------------------------------------------------------
# The model sees a rule and a reason, never SQLite's text (it names tables, columns
# and internals); the driver error stays in __cause__ for the operator log.
_REASONS = {
    "table": ("it reads a table or view that is not on the allowed list.",
              "The tool description lists the views you can query."),
    "wall": ("it reads something outside the allowed views, calls a function that is not "
             "allowed, or tries to change data.",
             "Only SELECT over the views in the tool description is allowed."),
    "column": ("it names a column that is missing, or that more than one view in the query has.",
               "Use the columns the tool description lists; qualify shared names with the view."),
    "function": ("it calls a function that does not exist here, or with the wrong number of arguments.",
                 "Use the functions the tool description lists."),
    "too-big": ("a value it reads or builds is larger than the limit.",
                "Build smaller values, and avoid reading large text columns whole."),
    "characters": ("it contains a NUL character or an unpaired surrogate.",
                   "Remove control characters from the query."),
    "one-statement": ("it holds more than one statement.", "Send exactly one SELECT."),
    "placeholder": ("it has a bind placeholder.", "Write the values into the query as literals."),
    "select-only": ("only a SELECT statement is accepted.", "Send one SELECT statement."),
    "invalid": ("the database could not run it as written.",
                "Check it against the views and columns in the tool description."),
}


def _rejected(rule: str) -> QueryRejected:
    reason, hint = _REASONS[rule]
    return QueryRejected(f"query refused (rule {rule}): {reason}", rule=rule, hint=hint)


def translate_query_error(exc: sqlite3.Error, timeout_s: float, past_deadline: bool) -> MemgateError:
    """Map a driver error from a query onto a rule the model can act on, without its text."""
    text = str(exc).lower()
    if "interrupted" in text and past_deadline:
        return QueryTimeout(f"the query was stopped after {timeout_s:g} s, its time limit.",
                            hint="Narrow the query: filter earlier, aggregate, or read fewer rows.")
    if isinstance(exc, sqlite3.ProgrammingError):
        if "one statement" in text:
            return _rejected("one-statement")
        if "binding" in text:
            return _rejected("placeholder")
        return _rejected("invalid")
    if any(w in text for w in ("not authorized", "authorization denied", "prohibited", "readonly", "read-only")):
        return _rejected("wall")
    if "too big" in text:
        return _rejected("too-big")
    if "no such table" in text:
        return _rejected("table")
    if "no such column" in text or "ambiguous column" in text:
        return _rejected("column")
    if "no such function" in text or "wrong number of arguments" in text:
        return _rejected("function")
    if "locked" in text or "busy" in text:
        return BackendUnavailable("the database is busy; try again", hint="Another process holds a lock.")
    if isinstance(exc, sqlite3.OperationalError | sqlite3.DataError):
        return _rejected("invalid")
    return BackendUnavailable("the database failed to run the query")
