"""execute_query on Oracle: one admitted SELECT on the read-only account, under VPD.

The query account (MEMGATE_QUERY) holds READ on the reviewed views and nothing else: no
EXECUTE on memgate's packages, so nothing it runs can bind an identity. VPD evaluates in
the session that runs the statement ("authorized by the owner but in the same current
user session", Security Guide 19c, Components of an Oracle VPD Policy), so the query
session needs the caller's identity of its own. The app account hands it over through the
global context MEMGATE_QCTX, set for username MEMGATE_QUERY and client identifier = a
random handle made for this one call (Security Guide 19c, DBMS_SESSION.SET_CONTEXT
username and client_id Parameters): only a query session whose client identifier is that
handle sees it. Per call:

1. app session: memgate_ctx_pkg.share_with_query(handle, tenant, user, agent, thread, now);
2. query session: DBMS_SESSION.SET_IDENTIFIER(handle), call_timeout, the query (a report's
   binds go to the driver as named parameters, never into the text), fetchone() up to
   max_rows + 1 rows, each reduced as it arrives (values.query_cell);
   call_timeout is set before each round trip to what is left of timeout_s, so the whole
   query ends by its deadline, on the server too (a timed-out call is broken off there);
3. finally: query session CLEAR_IDENTIFIER and call_timeout 0; app session
   unshare_with_query(handle). A session that timed out is dropped from its pool.

The handle never reaches the model; a query that guessed another call's 128-bit handle
would still need PL/SQL to set it, which admission refuses and the views cannot run.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Mapping
from typing import Any

import oracledb

from ...errors import AccessDenied, BackendUnavailable, MemgateError, QueryRejected, QueryTimeout
from ...identity import Identity
from ..base import QueryRows, ViewCatalog
from ..sql_files import load_sql
from . import statements as q
from .connect import Accounts
from .errors import codes, translate
from .values import binds as bind_values
from .values import column_name, cut_bytes, declared_type, query_cell

__all__ = ["ReadonlyQueries"]

_MODULE = "memgate"

_REASONS = {
    "table": (
        "it reads a table or view that is not on the allowed list.",
        "The tool description lists the views you can query.",
    ),
    "wall": (
        "it reads something outside the allowed views, or tries to change data.",
        "Only SELECT over the views in the tool description is allowed.",
    ),
    "column": (
        "it names a column or function that is missing, or a column that more than one view in the query has.",
        "Use the columns and functions the tool description lists; qualify shared names with the view.",
    ),
    "function": (
        "it calls a function with the wrong number or types of arguments.",
        "Check the arguments of the functions it calls.",
    ),
    "too-big": (
        "a value it builds is larger than Oracle allows in a query.",
        "Name the columns you need and build shorter text.",
    ),
    "invalid": (
        "the database could not run it as written.",
        "Check it against the views and columns in the tool description.",
    ),
}
_TABLE = {942, 980}  # table or view does not exist; synonym translation no longer valid
_WALL = {1031, 1456, 1732, 41400}  # privileges; read-only transaction; DML on a view; write in a query
_COLUMN = {904, 918}  # invalid identifier (also an unknown function); ambiguous column
_FUNCTION = {909, 938, 939, 6553}  # argument counts; PLS-306 wrong number or types
_TOO_BIG = {1489, 4036}  # concatenation too long; PGA limit
_TIMEOUT = {1013}  # user requested cancel (Thick mode's call timeout)
# unable to extend temp segment: MEMGATE_QUERY's own temporary tablespace is full (010_accounts.sql)
_TEMP = {1652}


def _rejected(rule: str) -> QueryRejected:
    reason, hint = _REASONS[rule]
    return QueryRejected(f"query refused (rule {rule}): {reason}", rule=rule, hint=hint)


class ReadonlyQueries:
    """execute_query's connections: an app session to share the identity, a query session to run."""

    def __init__(self, accounts: Accounts):
        self._accounts = accounts
        self._catalog: ViewCatalog | None = None
        self._lock = threading.Lock()

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
        handle = secrets.token_hex(16)
        shared = self._accounts.acquire("app")
        broken = False
        try:
            self._call(
                shared,
                q.SHARE_WITH_QUERY_IDENTITY.text,
                handle=handle,
                tenant=identity.tenant,
                user_id=identity.user,
                agent_id=identity.agent,
                thread_id=identity.thread,
                now=now,
            )
            try:
                return self._on_query_session(
                    identity, handle, sql, max_rows, timeout_s, max_chars, bind_values(binds or {})
                )
            finally:
                self._call(shared, q.UNSHARE_WITH_QUERY.text, handle=handle)
        except oracledb.Error as exc:
            broken = True
            raise translate(exc) from exc
        finally:
            self._accounts.release("app", shared, broken=broken)

    def _on_query_session(
        self,
        identity: Identity,
        handle: str,
        sql: str,
        max_rows: int,
        timeout_s: float,
        max_chars: int,
        binds: dict[str, Any],
    ) -> QueryRows:
        conn = self._accounts.acquire("query")
        broken = False
        try:
            # the client identifier is the handle here: the call id goes to client_info
            conn.module, conn.action = _MODULE, cut_bytes(identity.tool or "execute_query", 32)
            conn.clientinfo = cut_bytes(identity.call_id or "", 64)
            self._call(conn, q.SET_IDENTIFIER.text, handle=handle)
            try:
                return _read(conn, sql, binds, max_rows, max_chars, time.monotonic() + timeout_s, timeout_s)
            except oracledb.Error as exc:
                code, full = codes(exc)
                broken = full in ("DPY-4024", "DPY-4011") or code in _TIMEOUT
                raise _query_error(exc, timeout_s) from exc
        finally:
            try:
                if not broken:
                    conn.call_timeout = 0
                    self._call(conn, q.CLEAR_IDENTIFIER.text)
                    conn.module = conn.action = conn.clientinfo = ""
            except oracledb.Error:
                broken = True
            self._accounts.release("query", conn, broken=broken)

    def catalog(self) -> ViewCatalog:
        """The reviewed views the query account may read, with (column, declared type)."""
        with self._lock:
            if self._catalog is None:
                conn = self._accounts.acquire("query")
                try:
                    with conn.cursor() as cur:
                        cur.execute(load_sql("oracle", "query_catalog"))
                        found: dict[str, list[tuple[str, str | None]]] = {}
                        for view, column, declared in cur:
                            found.setdefault(view, []).append((column, declared))
                except oracledb.Error as exc:
                    raise BackendUnavailable("the database failed to load the query catalog") from exc
                finally:
                    self._accounts.release("query", conn)
                self._catalog = {v: tuple(cols) for v, cols in found.items()}
            return self._catalog

    @staticmethod
    def _call(conn: oracledb.Connection, plsql: str, **binds: object) -> None:
        with conn.cursor() as cur:
            cur.execute(plsql, binds)


def _read(
    conn: oracledb.Connection,
    sql: str,
    binds: dict[str, Any],
    max_rows: int,
    max_chars: int,
    deadline: float,
    timeout_s: float,
) -> QueryRows:
    """Rows reduced as they arrive. call_timeout bounds one round trip, so before each it is set to
    what is left of the call's time: the whole query, execute and fetches, ends by the deadline."""

    def time_left() -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _timed_out(timeout_s)
        conn.call_timeout = max(1, int(left * 1000))

    with conn.cursor() as cur:
        cur.arraysize = cur.prefetchrows = min(max_rows + 1, 1000)
        time_left()
        cur.execute(sql, binds)
        if cur.description is None:
            raise _rejected("wall")  # not a query: admission and the account refuse these first
        columns = [column_name(d.name) for d in cur.description]
        declared = [declared_type(d) for d in cur.description]
        rows: list[tuple] = []
        keep = max_chars + 1
        while True:
            time_left()
            if (raw := cur.fetchone()) is None:
                break
            if len(rows) == max_rows:
                return QueryRows(columns=columns, declared_types=declared, rows=rows, truncated=True)
            rows.append(tuple(query_cell(v, declared[i], keep) for i, v in enumerate(raw)))
        return QueryRows(columns=columns, declared_types=declared, rows=rows, truncated=False)


def _timed_out(timeout_s: float) -> QueryTimeout:
    return QueryTimeout(
        f"the query was stopped after {timeout_s:g} s, its time limit.",
        hint="Narrow the query: filter earlier, aggregate, or read fewer rows.",
    )


def _query_error(exc: oracledb.Error, timeout_s: float) -> MemgateError:
    """A driver error from the model's query as a rule it can act on, never Oracle's text."""
    code, full = codes(exc)
    if full == "DPY-4024" or code in _TIMEOUT:
        return _timed_out(timeout_s)
    if code in _TEMP:
        # Oracle's row limit is FETCH FIRST n ROWS ONLY (SQL Language Reference, SELECT,
        # row_limiting_clause); it has no LIMIT clause
        advice = (
            "filter the rows with WHERE before the ORDER BY or DISTINCT, or read fewer with FETCH FIRST n ROWS ONLY"
        )
        return QueryRejected(
            f"query refused (rule too-big): the query needed more temporary space than the database gives "
            f"queries; {advice}.",
            rule="too-big",
            hint=f"{advice}.",
        )
    for rule, group in (
        ("table", _TABLE),
        ("wall", _WALL),
        ("column", _COLUMN),
        ("function", _FUNCTION),
        ("too-big", _TOO_BIG),
    ):
        if code in group:
            return _rejected(rule)
    if full.startswith("ORA-"):
        return _rejected("invalid")
    error = translate(exc)
    return error if not isinstance(error, AccessDenied) else _rejected("wall")
