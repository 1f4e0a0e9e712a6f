"""python-oracledb errors onto the memgate error tree, once; the driver text stays in __cause__.

Codes are python-oracledb's `_Error.code` (the ORA number) and `full_code` (ORA-00001,
DPY-4024). The user-defined codes -20001 .. -20012 are raised by memgate's own triggers
and packages (sql/oracle/install/022_triggers.sql, 030_context.sql).
"""

from __future__ import annotations

import oracledb

from ...errors import (
    AccessDenied,
    BackendUnavailable,
    Conflict,
    DatabaseBusy,
    InvalidArgument,
    MemgateError,
    NotFound,
    QueryTimeout,
)

__all__ = ["DSN_SETTING", "codes", "connect_error", "is_call_timeout", "translate"]

#: how messages name the DSN setting, in the file and in the environment
DSN_SETTING = "database.dsn (MEMGATE_DATABASE__DSN)"

_IMMUTABLE = {20001, 20002}
_TENANT = 20003
_SCOPE = 20004
_POLICY_CHECK = 28115  # VPD update_check: the row would leave the caller's view
_MALFORMED = {1400, 1407, 1438, 1722, 2290, 2291, 2292, 12899, 20010, 20011, 20012}
_BUSY = {54, 60, 30006}  # resource busy (NOWAIT), deadlock, DDL wait timeout
_WALL = {942, 1031, 1720}  # no such table or view / insufficient privileges
_SNAPSHOT_GONE = {1466, 1555, 8180, 8181}  # table definition changed, snapshot too old, bad time/SCN
_CONNECT = {1017, 12154, 12505, 12514, 12541, 12543, 28000, 28001}
#: Connection.call_timeout ran out: Thin mode raises DPY-4024, Thick mode ORA-01013 (user requested cancel)
_CALL_TIMEOUT_CODE, _CALL_TIMEOUT_FULL = 1013, "DPY-4024"


def codes(exc: BaseException) -> tuple[int, str]:
    """(ORA number or 0, full code such as 'ORA-00001' or 'DPY-4024') of a driver error."""
    err = exc.args[0] if getattr(exc, "args", None) else None
    return int(getattr(err, "code", 0) or 0), str(getattr(err, "full_code", "") or "")


def is_call_timeout(exc: BaseException) -> bool:
    """True when a round trip ran past the connection's call_timeout."""
    code, full = codes(exc)
    return full == _CALL_TIMEOUT_FULL or code == _CALL_TIMEOUT_CODE


def translate(exc: oracledb.Error) -> MemgateError:
    """The memgate error for a driver error raised by a statement."""
    code, full = codes(exc)
    if is_call_timeout(exc):
        return QueryTimeout(
            "the database call ran past its time limit (caps.query_timeout_s) and was ended",
            hint="Narrow the request, or raise caps.query_timeout_s.",
        )
    if code == _TENANT:
        return AccessDenied("write refused: the row belongs to another tenant")
    if code == _SCOPE:
        return AccessDenied("write refused: the row is scoped to another user, agent or thread")
    if code == _POLICY_CHECK:
        return AccessDenied("write refused: the row would fall outside the caller's tenant or scope")
    if code in _IMMUTABLE:
        return AccessDenied("write refused: that record cannot be changed in place")
    if code == 1:
        return Conflict(
            "another writer committed this version first; nothing was written",
            hint="Read the current version and retry.",
        )
    if code in _MALFORMED:
        return InvalidArgument("the record is incomplete or malformed")
    if code in _WALL:
        return AccessDenied("statement refused by the tenant wall")
    if code in _SNAPSHOT_GONE:
        return NotFound(
            "that snapshot is no longer available: the database keeps undo only for its "
            "undo retention, and the table may have changed shape since",
            hint="Replay a more recent context, or ask the DBA to raise UNDO_RETENTION.",
        )
    if code in _BUSY:
        return DatabaseBusy("the database is busy; try again", hint="Another session holds a lock.")
    if full.startswith("DPY-4") or full.startswith("DPY-6") or code in _CONNECT:
        return connect_error(exc)
    return BackendUnavailable("the database failed to run a statement")


def connect_error(exc: BaseException, dsn: str | None = None, account: str | None = None) -> BackendUnavailable:
    """One line saying the database cannot be reached or logged in to, naming the setting to fix."""
    code, full = codes(exc)
    where = f" at {dsn!r}" if dsn else ""
    if code in (1017, 28000, 28001):
        who = f" as {account}" if account else ""
        return BackendUnavailable(
            f"Oracle refused the login{who}{where} ({full})",
            hint="Check the account's password variable (MEMGATE_ORACLE_*_PASSWORD) "
            "and that the DBA ran sql/oracle/install/010_accounts.sql.",
        )
    return BackendUnavailable(
        f"cannot reach Oracle{where} ({full or type(exc).__name__})",
        hint=f"Check {DSN_SETTING} and that the database is up.",
    )
