"""SQLite's grammar as execute_query admission reads it, and the functions a query may call.

sqlglot normally turns calls into typed nodes (IFNULL → Coalesce, SUBSTR → Substring),
which would make the allowlist check a name that SQLite never calls; the parser here
keeps every call as exp.Anonymous under its written name.

printf (and its alias format) is the one allowed function whose work the database does
not bound: `printf('%.*c', N, 'x')` repeats a character N times in one call, about 5 ns
each, whatever the length limit (1e9 took 5 s and returned NULL). Its call limit asks for
a literal format whose widths and precisions, written or passed for `*`, are numbers in
the query no larger than FORMAT_WIDTH_MAX.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlglot import exp
from sqlglot.dialects.sqlite import SQLite
from sqlglot.parsers.sqlite import SQLiteParser
from sqlglot.tokens import TokenType

from ..base import QueryDialect

__all__ = ["FORMAT_WIDTH_MAX", "SQLITE_FUNCTIONS", "SQLITE_QUERY_DIALECT", "fold"]

#: SQLite functions that only compute on values already read. Left out on purpose:
#: load_extension, readfile/writefile, randomblob/zeroblob (huge allocations), hex,
#: sqlite_version and the other sqlite_* introspection functions, random, changes.
#: `->`/`->>` are SQLite's json_extract operators (functions to the authorizer);
#: CAST, CASE, EXISTS, COLLATE and the LIKE/GLOB operators are syntax, always allowed.
SQLITE_FUNCTIONS: frozenset[str] = frozenset(
    {
        # aggregates
        "count",
        "sum",
        "avg",
        "min",
        "max",
        "total",
        "group_concat",
        # text
        "lower",
        "upper",
        "length",
        "substr",
        "trim",
        "ltrim",
        "rtrim",
        "replace",
        "instr",
        "printf",
        # null handling and choice
        "coalesce",
        "ifnull",
        "nullif",
        "iif",
        "typeof",
        # numbers
        "abs",
        "round",
        # dates
        "date",
        "time",
        "datetime",
        "julianday",
        "strftime",
        "current_date",
        "current_time",
        "current_timestamp",
        # json
        "json_extract",
        "->",
        "->>",
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
    """Fold a name as SQLite does: ASCII only. str.lower() would also fold e.g. the Kelvin
    sign into "k" and match a name SQLite treats as different."""
    return (name or "").translate(_ASCII_LOWER)


class AdmissionParser(SQLiteParser):
    """SQLite parser that keeps every function call as exp.Anonymous under its written name.

    Only CAST keeps its special syntax; CASE stays the one keyword-led expression.
    """

    FUNCTIONS: dict = {}
    FUNCTION_PARSERS = {"CAST": SQLiteParser.FUNCTION_PARSERS["CAST"]}
    NO_PAREN_FUNCTION_PARSERS = {"CASE": SQLiteParser.NO_PAREN_FUNCTION_PARSERS["CASE"]}

    # `->`/`->>` keep their path as written: sqlglot's path parser would log the caller's
    # text as a warning when the path is not valid JSONPath.
    CONCAT_OPERATORS = {
        **SQLiteParser.CONCAT_OPERATORS,
        TokenType.ARROW: lambda self, this, path: self.expression(exp.JSONExtract(this=this, expression=path)),
        TokenType.DARROW: lambda self, this, path: self.expression(exp.JSONExtractScalar(this=this, expression=path)),
    }

    def _warn_unsupported(self) -> None:
        # sqlglot logs the query text before parsing it as a Command; a Command is refused
        # anyway, and the caller's SQL does not belong in the operator log.
        pass


# With FUNCTIONS empty, typed Func nodes come only from syntax. These few are operators
# SQLite runs as functions (and its authorizer sees as such), so they need the list.
_OPERATOR_FUNCTIONS = {
    exp.JSONExtract: "->",
    exp.JSONExtractScalar: "->>",
    exp.RegexpLike: "regexp",
    exp.CurrentDate: "current_date",
    exp.CurrentTime: "current_time",
    exp.CurrentTimestamp: "current_timestamp",
}

#: the widest width or precision a printf conversion may ask for
FORMAT_WIDTH_MAX = 1000
# One printf conversion as SQLite reads it: flags, width, precision, length, type.
_CONVERSION = re.compile(r"%([-+ #!0,]*)(\*|\d+)?(?:\.(\*|\d*))?(?:ll?)?(.?)", re.DOTALL)


def _format_limit(name: str):
    refusal = (
        f"{name}'s format must be a string literal whose widths and precisions are numbers "
        f"written in the query, at most {FORMAT_WIDTH_MAX}"
    )

    def check(args: Sequence[exp.Expr]) -> str | None:
        if not args:
            return None
        fmt = args[0]
        if not (isinstance(fmt, exp.Literal) and fmt.is_string):
            return refusal
        position = 1  # the next argument a conversion takes
        for conversion in _CONVERSION.finditer(fmt.this):
            _flags, width, precision, kind = conversion.groups()
            for part in (width, precision):
                if part == "*":
                    if not _small_number(args[position] if position < len(args) else None):
                        return refusal
                    position += 1
                elif part and int(part) > FORMAT_WIDTH_MAX:
                    return refusal
            if kind and kind != "%":
                position += 1
        return None

    return check


def _small_number(node: exp.Expr | None) -> bool:
    """A number literal (or a negated one) no larger than FORMAT_WIDTH_MAX; a missing argument is 0."""
    if node is None:
        return True
    if isinstance(node, exp.Neg):
        node = node.this
    if not (isinstance(node, exp.Literal) and not node.is_string):
        return False
    try:
        return abs(float(node.this)) <= FORMAT_WIDTH_MAX
    except ValueError:
        return False


SQLITE_QUERY_DIALECT = QueryDialect(
    name="SQLite",
    sqlglot_dialect=SQLite(),
    parser=AdmissionParser,
    # One SQLite string literal: quotes doubled inside, backslash is not an escape.
    string_literal=re.compile(r"'(?:[^']|'')*'", re.DOTALL),
    allowed_functions=SQLITE_FUNCTIONS,
    operator_functions=_OPERATOR_FUNCTIONS,
    fold=fold,
    call_limits={"printf": _format_limit("printf"), "format": _format_limit("format")},
)
