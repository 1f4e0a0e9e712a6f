"""Oracle's grammar as execute_query admission reads it, and the functions a query may call.

As for SQLite, the parser keeps every call as exp.Anonymous under its written name, so
the allowlist checks the name Oracle runs. What admission refuses on every dialect also
covers Oracle's extras: a database link (`view@link`) is a name no reviewed view has, an
inline PL/SQL function (`WITH FUNCTION ...`) and a PL/SQL block do not parse as a
SELECT, and `AS OF` / `VERSIONS BETWEEN` are refused by the snapshot rule. The wall
behind admission is the database's: the query account holds READ on the reviewed views
only, no EXECUTE on any memgate package, and no FLASHBACK privilege.

Call limits: Oracle bounds every value a function builds (VARCHAR2 at 4,000 or 32,767
bytes, ORA-01489 past it), so LPAD, RPAD, REPLACE and LISTAGG need none, and the call
timeout breaks the statement off on the server. What the docs do not settle is whether that
break reaches the server inside one long regular-expression match, so the REGEXP_* functions
take a pattern only as a short string literal with no back-reference and no quantified group
(the patterns whose matching can take exponential time), the conservative side of SQLite's
100-byte limit on LIKE and GLOB patterns.

Report binds: an unquoted bind named like a reserved word fails on the server (ORA-01745),
so admission refuses those names (reserved_bind_names) when a report row is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlglot import exp
from sqlglot.dialects.oracle import Oracle
from sqlglot.parsers.oracle import OracleParser

from ..base import QueryDialect

__all__ = ["ORACLE_FUNCTIONS", "ORACLE_QUERY_DIALECT", "REGEXP_PATTERN_MAX", "RESERVED_WORDS", "fold"]

#: Oracle functions that compute only on values already read. Left out on purpose: anything
#: that reads the session or the dictionary (SYS_CONTEXT, USER, USERENV, ORA_*), DBMS_* and
#: UTL_* packages, XML functions, and VECTOR_EMBEDDING (runs a model).
ORACLE_FUNCTIONS: frozenset[str] = frozenset(
    {
        # aggregates
        "count",
        "sum",
        "avg",
        "min",
        "max",
        "listagg",
        "median",
        "stddev",
        "variance",
        # text
        "lower",
        "upper",
        "initcap",
        "length",
        "substr",
        "instr",
        "trim",
        "ltrim",
        "rtrim",
        "replace",
        "lpad",
        "rpad",
        "concat",
        "regexp_like",
        "regexp_substr",
        "regexp_instr",
        "regexp_replace",
        "regexp_count",
        # null handling and choice
        "coalesce",
        "nvl",
        "nvl2",
        "nullif",
        "decode",
        "greatest",
        "least",
        # numbers
        "abs",
        "round",
        "trunc",
        "ceil",
        "floor",
        "mod",
        "sign",
        # conversion and dates
        "to_char",
        "to_number",
        "to_date",
        "to_timestamp",
        "current_date",
        "current_timestamp",
        "systimestamp",
        "sysdate",
        # json (the reviewed views carry JSON as text)
        "json_value",
        # vectors: their size only
        "vector_dimension_count",
        # window functions
        "row_number",
        "rank",
        "dense_rank",
        "percent_rank",
        "cume_dist",
        "ntile",
        "lag",
        "lead",
        "first_value",
        "last_value",
        "nth_value",
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

#: Oracle SQL reserved words (SQL Language Reference 19c, "Oracle SQL Reserved Words"). An unquoted
#: bind with one of these names fails on the server with ORA-01745; python-oracledb leaves that
#: check to the server.
RESERVED_WORDS: frozenset[str] = frozenset(
    [
        "access",
        "add",
        "all",
        "alter",
        "and",
        "any",
        "as",
        "asc",
        "audit",
        "between",
        "by",
        "char",
        "check",
        "cluster",
        "column",
        "column_value",
        "comment",
        "compress",
        "connect",
        "create",
        "current",
        "date",
        "decimal",
        "default",
        "delete",
        "desc",
        "distinct",
        "drop",
        "else",
        "exclusive",
        "exists",
        "file",
        "float",
        "for",
        "from",
        "grant",
        "group",
        "having",
        "identified",
        "immediate",
        "in",
        "increment",
        "index",
        "initial",
        "insert",
        "integer",
        "intersect",
        "into",
        "is",
        "level",
        "like",
        "lock",
        "long",
        "maxextents",
        "minus",
        "mlslabel",
        "mode",
        "modify",
        "nested_table_id",
        "noaudit",
        "nocompress",
        "not",
        "nowait",
        "null",
        "number",
        "of",
        "offline",
        "on",
        "online",
        "option",
        "or",
        "order",
        "pctfree",
        "prior",
        "public",
        "raw",
        "rename",
        "resource",
        "revoke",
        "row",
        "rowid",
        "rownum",
        "rows",
        "select",
        "session",
        "set",
        "share",
        "size",
        "smallint",
        "start",
        "successful",
        "synonym",
        "sysdate",
        "table",
        "then",
        "to",
        "trigger",
        "uid",
        "union",
        "unique",
        "update",
        "user",
        "validate",
        "values",
        "varchar",
        "varchar2",
        "view",
        "whenever",
        "where",
        "with",
    ]
)

#: the longest REGEXP_* pattern a query may write
REGEXP_PATTERN_MAX = 100
_BACK_REFERENCE = re.compile(r"\\[1-9]")
_QUANTIFIED_GROUP = re.compile(r"\)\s*[*+?{]")


def _regexp_limit(name: str):
    refusal = (
        f"{name}'s pattern must be a string literal of at most {REGEXP_PATTERN_MAX} characters "
        "with no back-reference (\\1) and no quantified group such as (a+)+"
    )

    def check(args: Sequence[exp.Expr]) -> str | None:
        pattern = args[1] if len(args) > 1 else None
        if not (isinstance(pattern, exp.Literal) and pattern.is_string):
            return refusal
        text = pattern.this
        if len(text) > REGEXP_PATTERN_MAX or _BACK_REFERENCE.search(text) or _QUANTIFIED_GROUP.search(text):
            return refusal
        return None

    return check


_REGEXP_FUNCTIONS = ("regexp_like", "regexp_substr", "regexp_instr", "regexp_replace", "regexp_count")

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
    call_limits={name: _regexp_limit(name) for name in _REGEXP_FUNCTIONS},
    reserved_bind_names=RESERVED_WORDS,
)
