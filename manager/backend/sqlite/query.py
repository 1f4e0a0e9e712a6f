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
- time inside one function call, which neither reaches: the length limit below bounds
  every value a query reads or builds, the LIKE/GLOB pattern limit bounds those two,
  function_costs.py gates instr, replace and the two-argument trims, and admission bounds
  printf's width and precision (dialect.py);
- temporary disk (a big ORDER BY, DISTINCT or count(DISTINCT ...) spills to temp files):
  temp_space.py measures the query's temp files from the same progress handler and stops
  it at caps.query_temp_mb, or when the process's together pass caps.query_temp_total_mb;
- memory: values up to the length limit, at most _COLUMNS of them per row, and rows are
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
from ...errors import AccessDenied, BackendUnavailable, MemgateError, QueryRejected, QueryTimeout
from ...identity import Identity
from ..base import BinaryLength, QueryRows, ViewCatalog
from ..sql_files import load_sql
from .context import CONTEXT_FUNCTIONS
from .deadline import Deadline
from .dialect import SQLITE_FUNCTIONS, fold
from .function_costs import CostGates
from .pool import ConnectionPool, WalledConnection
from .query_views import build_query_views
from .temp_space import MB, TempCaps, TempStop, ledger
from .wall import refuse_base_table_names

__all__ = ["QUERY_FUNCTIONS", "ReadonlyQueries", "query_authorizer"]

#: what the wall lets a query call: admission's list, plus LIKE and GLOB, which are
#: syntax to the parser but functions to SQLite's authorizer.
QUERY_FUNCTIONS: frozenset[str] = SQLITE_FUNCTIONS | {"like", "glob"}

# Longest string or blob a query may read or build, in bytes. A row holds at most _COLUMNS
# values, and a value costs about its size again while SQLite works on it, so this bounds
# one query's memory (64 columns of 1 MiB measured +72 MB peak); it also bounds how long
# a LIKE or a gated function call can run. SQLite applies it to stored values as they are
# read too: a longer value (a whole document of over 1 MiB of text, say) is refused with
# the too-big rule, and knowledge_base_chunk holds the same text in small pieces.
VALUE_BYTES = 1024 * 1024
_COLUMNS = 64  # any two reviewed views side by side fit (the widest has 24 columns)
# A LIKE or GLOB costs about len(value) * len(pattern): 100 bytes against 1 MiB measured
# 0.2 s (LIKE) and 0.4 s (GLOB with [...] classes).
LIKE_PATTERN_BYTES = 100
_SQL_BYTES = 4 * 1024 * 1024
_LIMITS = {
    sqlite3.SQLITE_LIMIT_LENGTH: VALUE_BYTES,
    sqlite3.SQLITE_LIMIT_COLUMN: _COLUMNS,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: LIKE_PATTERN_BYTES,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: _SQL_BYTES,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
}
_POOL_IDLE_MAX = 4
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
            raise _rejected("table") from None
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
                            raise _temp_refused(meter.stopped, identity) from exc
                        raise translate_query_error(
                            exc, timeout_s, deadline.passed, refused=conn.cost_gates.refused
                        ) from exc
                    except (UnicodeEncodeError, ValueError):  # an unpaired surrogate, a NUL: the driver refuses
                        raise _rejected("characters") from None
                    finally:
                        if cursor is not None:
                            cursor.close()
            finally:
                conn.text_factory = str
                ctx.clear()
        if result is None:
            raise _rejected("select-only")
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
            for category, value in _LIMITS.items():
                conn.setlimit(category, value)
            conn.cost_gates = CostGates(_LIMITS)
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


# -- errors ------------------------------------------------------------------
# The model sees a rule and a reason, never SQLite's text (it names tables, columns
# and internals); the driver error stays in __cause__ for the operator log.
_REASONS = {
    "table": (
        "it reads a table or view that is not on the allowed list.",
        "The tool description lists the views you can query.",
    ),
    "wall": (
        "it reads something outside the allowed views, calls a function that is not allowed, or tries to change data.",
        "Only SELECT over the views in the tool description is allowed.",
    ),
    "column": (
        "it names a column that is missing, or that more than one view in the query has.",
        "Use the columns the tool description lists; qualify shared names with the view.",
    ),
    "function": (
        "it calls a function that does not exist here, or with the wrong number of arguments.",
        "Use the functions the tool description lists.",
    ),
    "too-big": (
        f"a value it reads or builds is larger than the limit ({VALUE_BYTES // 1024 // 1024} MiB).",
        "A document's full text (knowledge_base_document.content) can be that large: name the "
        "columns you need instead of *, use token_count for its size and knowledge_base_chunk "
        "for its text.",
    ),
    "too-costly": (
        "a text function would compare values too long to finish in time.",
        "Compare shorter text: search knowledge_base_chunk rather than whole documents, or use a shorter needle.",
    ),
    "pattern": (
        f"a LIKE or GLOB pattern is longer than {LIKE_PATTERN_BYTES} bytes.",
        "Use a shorter pattern, or several shorter ones joined with AND.",
    ),
    "columns": (f"it returns more than {_COLUMNS} columns.", "Name the columns you need instead of SELECT *."),
    "characters": (
        "it contains a NUL character or an unpaired surrogate.",
        "Remove control characters from the query.",
    ),
    "one-statement": ("it holds more than one statement.", "Send exactly one SELECT."),
    "placeholder": ("it has a bind placeholder.", "Write the values into the query as literals."),
    "select-only": ("only a SELECT statement is accepted.", "Send one SELECT statement."),
    "invalid": (
        "the database could not run it as written.",
        "Check it against the views and columns in the tool description.",
    ),
}


def _rejected(rule: str) -> QueryRejected:
    reason, hint = _REASONS[rule]
    return QueryRejected(f"query refused (rule {rule}): {reason}", rule=rule, hint=hint)


def _temp_refused(stop: TempStop, identity: Identity) -> QueryRejected:
    """The too-big answer for a query stopped at a temp-space cap, and the operator's line with the figures."""
    logger.warning(
        "execute_query stopped for tenant %s: it held %.1f MB of temporary space, over caps.%s = %d MB "
        "(all queries of this process held %.1f MB)",
        identity.tenant,
        stop.query_bytes / MB,
        "query_temp_mb" if stop.cap == "query" else "query_temp_total_mb",
        stop.cap_mb,
        stop.total_bytes / MB,
    )
    if stop.cap == "query":
        reason = f"the query needed more than {stop.cap_mb} MB of temporary space"
    else:
        reason = f"the running queries together needed more than {stop.cap_mb} MB of temporary space"
    advice = "add a LIMIT before the ORDER BY or DISTINCT, or narrow the rows"
    return QueryRejected(f"query refused (rule too-big): {reason}; {advice}.", rule="too-big", hint=f"{advice}.")


def translate_query_error(
    exc: sqlite3.Error, timeout_s: float, past_deadline: bool, refused: str | None = None
) -> MemgateError:
    """Map a driver error from a query onto a rule the model can act on, without its text.

    `refused` is the rule a cost gate refused a call by (function_costs.py), if one did.
    """
    text = str(exc).lower()
    if "interrupted" in text and past_deadline:
        return QueryTimeout(
            f"the query was stopped after {timeout_s:g} s, its time limit.",
            hint="Narrow the query: filter earlier, aggregate, or read fewer rows.",
        )
    if refused is not None and "user-defined function" in text:
        return _rejected(refused)
    if "pattern too complex" in text:
        return _rejected("pattern")
    if "too many columns" in text:
        return _rejected("columns")
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
