"""Oracle's grammar as execute_query admission reads it, and the functions a query may call.

As for SQLite, the parser keeps every call as exp.Anonymous under its written name, so
the allowlist checks the name Oracle runs. What admission refuses on every dialect also
covers Oracle's extras: a database link (`view@link`) is a name no reviewed view has, an
inline PL/SQL function (`WITH FUNCTION ...`) and a PL/SQL block do not parse as a
SELECT, and `AS OF` / `VERSIONS BETWEEN` are refused by the snapshot rule. The wall
behind admission is the database's: the query account holds READ on the reviewed views
only, no EXECUTE on any memgate package, and no FLASHBACK privilege.

No call limits: Oracle bounds every value (VARCHAR2 at 4,000 or 32,767 bytes) and the
call timeout ends the whole statement on the server, inside a function call too.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.dialects.oracle import Oracle
from sqlglot.parsers.oracle import OracleParser

from ..base import QueryDialect

__all__ = ["ORACLE_FUNCTIONS", "ORACLE_QUERY_DIALECT", "fold"]

#: Oracle functions that compute only on values already read. Left out on purpose: anything
#: that reads the session or the dictionary (SYS_CONTEXT, USER, USERENV, ORA_*), DBMS_* and
#: UTL_* packages, XML functions, and VECTOR_EMBEDDING (runs a model).
ORACLE_FUNCTIONS: frozenset[str] = frozenset(
    {
        # aggregates
        "count", "sum", "avg", "min", "max", "listagg", "median", "stddev", "variance",
        # text
        "lower", "upper", "initcap", "length", "substr", "instr", "trim", "ltrim", "rtrim",
        "replace", "lpad", "rpad", "concat", "regexp_like", "regexp_substr", "regexp_instr",
        "regexp_replace", "regexp_count",
        # null handling and choice
        "coalesce", "nvl", "nvl2", "nullif", "decode", "greatest", "least",
        # numbers
        "abs", "round", "trunc", "ceil", "floor", "mod", "sign",
        # conversion and dates
        "to_char", "to_number", "to_date", "to_timestamp", "current_date", "current_timestamp",
        "systimestamp", "sysdate",
        # json (the reviewed views carry JSON as text)
        "json_value",
        # vectors: their size only
        "vector_dimension_count",
        # window functions
        "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
        "lag", "lead", "first_value", "last_value", "nth_value",
    }
)

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(name: str | None) -> str:
    """Unquoted Oracle names are case-insensitive; ASCII lower-case compares them (as SQLite's fold)."""
    return (name or "").translate(_ASCII_LOWER)


class AdmissionParser(OracleParser):
    """Oracle parser that keeps every function call as exp.Anonymous under its written name."""

    FUNCTIONS: dict = {}
    FUNCTION_PARSERS = {"CAST": OracleParser.FUNCTION_PARSERS["CAST"]}
    NO_PAREN_FUNCTION_PARSERS = {"CASE": OracleParser.NO_PAREN_FUNCTION_PARSERS["CASE"]}

    def _warn_unsupported(self) -> None:
        # A Command is refused anyway; the caller's SQL does not belong in the operator log.
        pass


# With FUNCTIONS empty, typed Func nodes come only from syntax: the no-paren date functions.
_OPERATOR_FUNCTIONS = {
    exp.CurrentDate: "current_date",
    exp.CurrentTimestamp: "current_timestamp",
    exp.Systimestamp: "systimestamp",
}

ORACLE_QUERY_DIALECT = QueryDialect(
    name="Oracle",
    sqlglot_dialect=Oracle(),
    parser=AdmissionParser,
    # One plain Oracle string literal: quotes doubled inside. q'[...]' literals are not
    # matched, so a `;` inside one is refused as a second statement (the safe side).
    string_literal=re.compile(r"'(?:[^']|'')*'", re.DOTALL),
    allowed_functions=ORACLE_FUNCTIONS,
    operator_functions=_OPERATOR_FUNCTIONS,
    fold=fold,
)
