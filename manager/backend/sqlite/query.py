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

No admitted query may use CPU past its deadline or hold more than a bounded amount of
memory, so every cost is bounded where it arises:

- time between VM steps: deadline.py (a progress handler, and a watchdog that calls
  interrupt() at the deadline);
- time inside one function call, which neither reaches: the length limit (query_limits.py) bounds
  every value a query reads or builds, the LIKE/GLOB pattern limit bounds those two,
  function_costs.py gates instr, replace and the two-argument trims, and admission bounds
  printf's width and precision (dialect.py);
- temporary disk (a big ORDER BY, DISTINCT or count(DISTINCT ...) spills to temp files):
  temp_space.py measures the query's temp files from the same progress handler and stops
  it at caps.query_temp_mb, or when the process's together pass caps.query_temp_total_mb;
- memory: values up to the length limit, at most COLUMNS of them per row, and rows are
  read one at a time, each reduced as it arrives (text cut to what a cell can show,
  binary values to their length), so only one raw row is ever alive. Reading
  max_rows + 1 rows makes "more rows exist" exact.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...clock import now_iso
from ...errors import AccessDenied, BackendUnavailable
from ...identity import Identity
from ..base import BinaryLength, QueryRows, ViewCatalog
from ..sql_files import load_sql
from .context import CONTEXT_FUNCTIONS
from .deadline import Deadline
from .dialect import SQLITE_FUNCTIONS, fold
from .function_costs import CostGates
from .pool import PAGE_CACHE_KIB, ConnectionPool, WalledConnection
from .query_limits import LIMITS, rejected, temp_refused, translate_query_error
from .query_views import build_query_views
from .temp_space import TempCaps, ledger
from .wall import refuse_base_table_names

__all__ = ["QUERY_FUNCTIONS", "ReadonlyQueries", "query_authorizer"]

#: what the wall lets a query call: admission's list, plus LIKE and GLOB, which are
#: syntax to the parser but functions to SQLite's authorizer.
QUERY_FUNCTIONS: frozenset[str] = SQLITE_FUNCTIONS | {"like", "glob"}

_POOL_IDLE_MAX = 8
logger = logging.getLogger(__name__)

# Declared types whose values are never shown: the converters below swap the value for
# a marker as SQLite hands it over, so a LOB's text never reaches a result row. The
# registration is process-wide but acts only on connections opened with detect_types,
# which in memgate is this module's query connection alone.
_LOB_TYPES = ("LOB", "BLOB", "CLOB", "NCLOB", "BFILE")
_VECTOR_TYPE = "VECTOR"


@dataclass(frozen=True, slots=True)
class _Declared:
    declared: str
    size: int | None  # kept for vectors only: their byte length gives the dimension


def _converter(declared: str, keep: bool):
    return lambda raw: _Declared(declared, len(raw) if keep else None)


for _name in _LOB_TYPES:
    sqlite3.register_converter(_name, _converter(_name, keep=False))
sqlite3.register_converter(_VECTOR_TYPE, _converter(_VECTOR_TYPE, keep=True))


class _QueryConnection(sqlite3.Connection):
    """A query connection and the cost gates installed on it (closed with it)."""

    cost_gates: CostGates

    def close(self) -> None:
        super().close()
        if gates := getattr(self, "cost_gates", None):
            gates.close()


def query_authorizer(
    views: frozenset[str], functions: frozenset[str], known_names: frozenset[str], behind: frozenset[str] = frozenset()
):
    """The authorizer for query connections; names are ASCII-lower-cased. See the module docstring.

    `views` are the reviewed (temp) views, `behind` the walled main views they read.
    """
    ok, deny = sqlite3.SQLITE_OK, sqlite3.SQLITE_DENY
    context_functions = frozenset(CONTEXT_FUNCTIONS)

    def authorize(action: int, arg1: str | None, arg2: str | None, dbname: str | None, source: str | None) -> int:
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
            if dbname is None and table and table not in known_names and not table.startswith(("pragma_", "sqlite_")):
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
        #: caps.query_temp_mb and caps.query_temp_total_mb (the manager sets them)
        self.temp_caps = TempCaps()
        if not ledger.available:
            logger.warning("execute_query's temporary-space caps cannot be measured here (no /proc/self/fd)")

    def run(
        self,
        identity: Identity,
        sql: str,
        max_rows: int,
        timeout_s: float,
        now: str,
        max_chars: int = 500,
        binds: Mapping[str, Any] | None = None,
    ) -> QueryRows:
        """Run one read-only query as `identity`, current rows as of `now`; see the module docstring.

        Text values arrive cut to max_chars + 1 characters, so the caller's clip at
        max_chars still marks them as clipped. `binds` go to the driver as named parameters.
        """
        try:
            refuse_base_table_names(sql)
        except AccessDenied:
            raise rejected("table") from None
        with self._connection() as q:
            conn: _QueryConnection = q.conn
            ctx = q.context
            ctx.bind(identity, now)
            conn.cost_gates.reset()
            conn.text_factory = _clipped_text(max_chars + 1)
            cursor = None
            try:
                with ledger.meter(self.temp_caps) as meter, Deadline(conn, timeout_s, meter.over) as deadline:
                    try:
                        cursor = conn.execute(sql, dict(binds or {}))
                        columns = [d[0] for d in cursor.description or ()]
                        result = _read(cursor, columns, max_rows) if columns else None
                    except sqlite3.Error as exc:
                        if meter.stopped is not None:
                            raise temp_refused(meter.stopped, identity) from exc
                        raise translate_query_error(
                            exc, timeout_s, deadline.passed, refused=conn.cost_gates.refused
                        ) from exc
                    except (UnicodeEncodeError, ValueError):  # an unpaired surrogate, a NUL: the driver refuses
                        raise rejected("characters") from None
                    finally:
                        if cursor is not None:
                            cursor.close()
            finally:
                conn.text_factory = str
                ctx.clear()
        if result is None:
            raise rejected("select-only")
        return result

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
            self._pool.give(q)

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                f"{self.path.resolve().as_uri()}?mode=ro",
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                timeout=self._busy_timeout_ms / 1000,
                detect_types=sqlite3.PARSE_DECLTYPES,
                factory=_QueryConnection,
            )
            conn.execute("PRAGMA query_only = 1")
            conn.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
            # the sorter spills from the query's own thread, which is what temp_space.py watches
            conn.execute("PRAGMA threads = 0")
            for category, value in LIMITS.items():
                conn.setlimit(category, value)
            conn.cost_gates = CostGates(LIMITS)
            conn.cost_gates.install(conn)
        except sqlite3.Error as exc:
            raise BackendUnavailable(
                f"cannot open SQLite database {self.path} read-only for queries",
                hint="Check database.path and its folder's permissions.",
            ) from exc
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
    q.authorizer = query_authorizer(
        frozenset(fold(v) for v in q.catalog),
        QUERY_FUNCTIONS,
        frozenset(fold(n) for n in names),
        frozenset(fold(t) for t in behind),
    )


def _clipped_text(keep: int):
    """A text_factory that decodes only the first `keep` characters of a value.

    A character is at most 4 UTF-8 bytes, so 4 * keep bytes always hold `keep` whole
    characters; a character cut at that edge decodes past them and is dropped.
    """
    head = 4 * keep

    def decode(raw: bytes) -> str:
        return raw[:head].decode("utf-8", "replace")[:keep]

    return decode


def _read(cursor: sqlite3.Cursor, columns: list[str], max_rows: int) -> QueryRows:
    """Up to max_rows rows, each reduced as it is read, and whether more exist."""
    declared: list[str | None] = [None] * len(columns)
    rows: list[tuple] = []
    while (raw := cursor.fetchone()) is not None:
        if len(rows) == max_rows:
            return QueryRows(columns=columns, declared_types=declared, rows=rows, truncated=True)
        rows.append(tuple(_reduce(value, i, declared) for i, value in enumerate(raw)))
    return QueryRows(columns=columns, declared_types=declared, rows=rows, truncated=False)


def _reduce(value: object, i: int, declared: list[str | None]) -> object:
    """What a cell needs of one value: converter markers unwrapped, bytes by their length."""
    if isinstance(value, _Declared):
        declared[i] = value.declared
        # A LOB's value was dropped by its converter; any non-NULL value makes <LOB>.
        return BinaryLength(value.size) if value.declared == _VECTOR_TYPE else value.declared
    if isinstance(value, bytes):
        return BinaryLength(len(value))
    return value
