"""The limits of execute_query's SQLite connection, and the refusals that name them.

query.py opens each connection with LIMITS and maps a driver error from a query onto a
rule the model can act on (translate_query_error), never SQLite's own text; a query
stopped at a temp-space cap (temp_space.py) gets the too-big rule with its figure.
"""

from __future__ import annotations

import logging
import sqlite3

from ...errors import BackendUnavailable, MemgateError, QueryRejected, QueryTimeout
from ...identity import Identity
from .temp_space import MB, TempStop

__all__ = ["LIKE_PATTERN_BYTES", "LIMITS", "VALUE_BYTES", "rejected", "temp_refused", "translate_query_error"]

logger = logging.getLogger(__name__)

# Longest string or blob a query may read or build, in bytes. A row holds at most _COLUMNS
# values, and a value costs about its size again while SQLite works on it, so this bounds
# one query's memory (64 columns of 1 MiB measured +72 MB peak); it also bounds how long
# a LIKE or a gated function call can run. SQLite applies it to stored values as they are
# read too: a longer value (a whole document of over 1 MiB of text, say) is refused with
# the too-big rule, and knowledge_base_chunk holds the same text in small pieces.
VALUE_BYTES = 1024 * 1024
COLUMNS = 64  # any two reviewed views side by side fit (the widest has 24 columns)
# A LIKE or GLOB costs about len(value) * len(pattern): 100 bytes against 1 MiB measured
# 0.2 s (LIKE) and 0.4 s (GLOB with [...] classes).
LIKE_PATTERN_BYTES = 100
SQL_BYTES = 4 * 1024 * 1024
LIMITS = {
    sqlite3.SQLITE_LIMIT_LENGTH: VALUE_BYTES,
    sqlite3.SQLITE_LIMIT_COLUMN: COLUMNS,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: LIKE_PATTERN_BYTES,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: SQL_BYTES,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
}


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
    "columns": (f"it returns more than {COLUMNS} columns.", "Name the columns you need instead of SELECT *."),
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


def rejected(rule: str) -> QueryRejected:
    reason, hint = _REASONS[rule]
    return QueryRejected(f"query refused (rule {rule}): {reason}", rule=rule, hint=hint)


def temp_refused(stop: TempStop, identity: Identity) -> QueryRejected:
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
        return rejected(refused)
    if "pattern too complex" in text:
        return rejected("pattern")
    if "too many columns" in text:
        return rejected("columns")
    if isinstance(exc, sqlite3.ProgrammingError):
        if "one statement" in text:
            return rejected("one-statement")
        if "binding" in text:
            return rejected("placeholder")
        return rejected("invalid")
    if any(w in text for w in ("not authorized", "authorization denied", "prohibited", "readonly", "read-only")):
        return rejected("wall")
    if "too big" in text:
        return rejected("too-big")
    if "no such table" in text:
        return rejected("table")
    if "no such column" in text or "ambiguous column" in text:
        return rejected("column")
    if "no such function" in text or "wrong number of arguments" in text:
        return rejected("function")
    if "locked" in text or "busy" in text:
        return BackendUnavailable("the database is busy; try again", hint="Another process holds a lock.")
    if isinstance(exc, sqlite3.OperationalError | sqlite3.DataError):
        return rejected("invalid")
    return BackendUnavailable("the database failed to run the query")
