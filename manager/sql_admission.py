"""Admission check for `execute_query`: one read-only SELECT over allowlisted views.

This is the friendly early error, not the boundary. The wall is the read-only SQLite
connection and its authorizer (and the Oracle read-only account): whatever this check
misses, they still refuse. The rules read sqlglot's SQLite syntax tree, not the raw
string; only the semicolon and bind-placeholder rules read tokens, because the parser
throws away what they must see.

Recursive CTEs are admitted; the runtime deadline on the connection ends runaway ones.
Messages name the rule that failed and never echo table, schema or function names the
caller wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.dialects.sqlite import SQLite
from sqlglot.errors import ErrorLevel
from sqlglot.parsers.sqlite import SQLiteParser
from sqlglot.tokens import Token, TokenType

from .errors import QueryRejected

__all__ = ["AdmittedQuery", "DEFAULT_ALLOWED_FUNCTIONS", "admit_query"]

#: SQLite functions that only compute on values already read. Left out on purpose:
#: load_extension, readfile/writefile, randomblob/zeroblob (huge allocations), hex,
#: sqlite_version and the other sqlite_* introspection functions, random, changes.
#: `->`/`->>` are SQLite's json_extract operators (functions to the authorizer);
#: CAST, CASE, EXISTS, COLLATE and the LIKE/GLOB operators are syntax, always allowed.
DEFAULT_ALLOWED_FUNCTIONS: frozenset[str] = frozenset(
    {
        # aggregates
        "count", "sum", "avg", "min", "max", "total", "group_concat",
        # text
        "lower", "upper", "length", "substr", "trim", "ltrim", "rtrim", "replace", "instr",
        "printf",
        # null handling and choice
        "coalesce", "ifnull", "nullif", "iif", "typeof",
        # numbers
        "abs", "round",
        # dates
        "date", "time", "datetime", "julianday", "strftime",
        "current_date", "current_time", "current_timestamp",
        # json
        "json_extract", "->", "->>",
        # window functions
        "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
        "lag", "lead", "first_value", "last_value", "nth_value",
    }
)


@dataclass(frozen=True, slots=True)
class AdmittedQuery:
    """A query that passed admission: its text and the (lower-cased) views it reads."""

    sql: str
    tables: frozenset[str]


def admit_query(
    sql: str,
    *,
    allowed_views: set[str],
    allowed_functions: set[str],
    max_chars: int = 32000,
) -> AdmittedQuery:
    """Admit one SELECT that reads only `allowed_views` and calls only `allowed_functions`.

    Raises QueryRejected, whose `rule` names the failed rule, for anything else.
    """
    if not isinstance(sql, str):
        raise _rejected("syntax")
    if len(sql) > max_chars:
        raise QueryRejected(
            f"query refused (rule length): it is {len(sql)} characters long and the limit "
            f"is {max_chars}.",
            rule="length",
            hint="Ask for fewer columns or split the question into smaller queries.",
        )
    if not sql.strip():
        raise _rejected("empty")
    if "\x00" in sql or not _is_encodable(sql):
        raise _rejected("characters")

    tokens = _tokenize(sql)
    _check_semicolons(sql, tokens)
    _check_placeholders(sql, tokens)
    tree = _parse(*_without_comments(sql, tokens))

    if not isinstance(tree, (exp.Select, exp.SetOperation)):
        raise _rejected("select-only")
    nodes = list(tree.walk())
    if any(isinstance(node, _STATEMENTS) for node in nodes):
        raise _rejected("nested-statement")
    if any(_is_empty_clause(node) for node in nodes):
        raise _rejected("syntax")  # sqlglot accepts `SELECT` alone or `GROUP BY` with nothing

    views = {_fold(name) for name in allowed_views}
    functions = {_fold(name) for name in allowed_functions}
    tables = _check_tables(nodes, views)
    _check_functions(nodes, functions)
    return AdmittedQuery(sql=sql.strip(), tables=frozenset(tables))


# Rules --------------------------------------------------------------------------------

_REASONS = {
    "empty": ("it contains no SQL statement.", "Send one SELECT statement."),
    "characters": (
        "it contains a NUL character or an unpaired surrogate.",
        "Remove control characters from the query.",
    ),
    "syntax": (
        "it could not be parsed as SQLite SQL.",
        "Send one SELECT (or WITH ... SELECT) statement in SQLite syntax.",
    ),
    "complexity": (
        "it is nested too deeply to check.",
        "Flatten the nested expressions or subqueries.",
    ),
    "one-statement": (
        "it has a semicolon outside a string literal.",
        "Send exactly one statement, without a trailing semicolon.",
    ),
    "placeholder": (
        "it has a bind placeholder (?, :name, @name, $name or #name).",
        "Write the values into the query as literals.",
    ),
    "select-only": (
        "only a SELECT statement is accepted.",
        "WITH ... SELECT and UNION, INTERSECT or EXCEPT of SELECTs are fine.",
    ),
    "nested-statement": (
        "it contains a statement other than SELECT inside it.",
        "Only reads are accepted, also inside WITH clauses and subqueries.",
    ),
    "schema": (
        "it names a schema or a database link (like main.x, temp.x or x@link).",
        "Use the bare view name.",
    ),
}


def _rejected(rule: str, hint: str | None = None) -> QueryRejected:
    reason, default_hint = _REASONS[rule]
    return QueryRejected(
        f"query refused (rule {rule}): {reason}", rule=rule, hint=hint or default_hint
    )


def _not_listed(rule: str, allowed: Iterable[str]) -> QueryRejected:
    if rule == "table":
        what, does = "view", "reads a table or view"
    else:
        what, does = "function", "calls a function"
    names = ", ".join(sorted(allowed))
    return QueryRejected(
        f"query refused (rule {rule}): it {does} that is not on the allowed list.",
        rule=rule,
        hint=f"Allowed {what}s: {names}." if names else f"No {what}s are allowed here.",
    )


# Tokens -------------------------------------------------------------------------------

_DIALECT = SQLite()
# One SQLite string literal: quotes doubled inside, backslash is not an escape.
_SQLITE_STRING = re.compile(r"'(?:[^']|'')*'", re.DOTALL)
_PLACEHOLDER_TOKENS = {
    TokenType.PLACEHOLDER,
    TokenType.PARAMETER,
    TokenType.SESSION_PARAMETER,
    TokenType.COLON,
    TokenType.HASH,
}
_NAME_TOKENS = {TokenType.VAR, TokenType.IDENTIFIER}


def _tokenize(sql: str) -> list[Token]:
    try:
        return _DIALECT.tokenize(sql)
    except RecursionError:
        raise _rejected("complexity") from None
    except Exception:  # sqlglot raises TokenError, and the odd ValueError on odd input
        raise _rejected("syntax") from None


def _without_comments(sql: str, tokens: list[Token]) -> tuple[str, list[Token]]:
    """The query re-spelt from its tokens alone, when it has comments.

    Comments carry no meaning, but sqlglot's parser trips on some placements
    (`ORDER /* c */ BY`). Tokens are what admission checks either way; SQLite
    runs the original text.
    """
    if not any(token.comments for token in tokens):
        return sql, tokens
    clean = " ".join(sql[token.start : token.end + 1] for token in tokens)
    return clean, _tokenize(clean)


def _check_semicolons(sql: str, tokens: list[Token]) -> None:
    # Blank out genuine single-quoted literals; any `;` left (in code, comments or quoted
    # identifiers) is refused. Requiring the literal's exact SQLite shape keeps a token
    # sqlglot merged differently (a COMMAND tail, a $$ string) from hiding a separator.
    text = list(sql)
    for token in tokens:
        if token.token_type is TokenType.STRING:
            literal = sql[token.start : token.end + 1]
            if _SQLITE_STRING.fullmatch(literal):
                text[token.start : token.end + 1] = " " * len(literal)
    if ";" in "".join(text):
        raise _rejected("one-statement")


def _check_placeholders(sql: str, tokens: list[Token]) -> None:
    previous: Token | None = None
    for token in tokens:
        first = sql[token.start] if token.start < len(sql) else ""
        if token.token_type is TokenType.DCOLON:
            raise _rejected("syntax")  # `::` casts are not SQLite
        if token.token_type in _PLACEHOLDER_TOKENS or (
            first == "$" and token.token_type not in (TokenType.STRING, TokenType.IDENTIFIER)
        ):
            glued = previous is not None and previous.end + 1 == token.start
            after_name = glued and previous.token_type in _NAME_TOKENS
            if token.token_type is TokenType.PARAMETER and after_name:
                raise _rejected("schema")  # name@link: an Oracle-style database link
            raise _rejected("placeholder")
        previous = token


# Tree ---------------------------------------------------------------------------------


class _AdmissionParser(SQLiteParser):
    """SQLite parser that keeps every function call as exp.Anonymous under its written name.

    sqlglot normally turns calls into typed nodes (IFNULL → Coalesce, SUBSTR → Substring),
    which would make the allowlist check a name that SQLite never calls. Only CAST keeps
    its special syntax; CASE stays the one keyword-led expression.
    """

    FUNCTIONS: dict = {}
    FUNCTION_PARSERS = {"CAST": SQLiteParser.FUNCTION_PARSERS["CAST"]}
    NO_PAREN_FUNCTION_PARSERS = {"CASE": SQLiteParser.NO_PAREN_FUNCTION_PARSERS["CASE"]}

    # `->`/`->>` keep their path as written: sqlglot's path parser would log the caller's
    # text as a warning when the path is not valid JSONPath.
    CONCAT_OPERATORS = {
        **SQLiteParser.CONCAT_OPERATORS,
        TokenType.ARROW: lambda self, this, path: self.expression(
            exp.JSONExtract(this=this, expression=path)
        ),
        TokenType.DARROW: lambda self, this, path: self.expression(
            exp.JSONExtractScalar(this=this, expression=path)
        ),
    }

    def _warn_unsupported(self) -> None:
        # sqlglot logs the query text before parsing it as a Command; a Command is refused
        # anyway, and the caller's SQL does not belong in the operator log.
        pass


def _parse(sql: str, tokens: list[Token]) -> exp.Expr:
    try:
        trees = _AdmissionParser(dialect=_DIALECT, error_level=ErrorLevel.IMMEDIATE).parse(
            tokens, sql
        )
    except RecursionError:
        raise _rejected("complexity") from None
    except Exception:  # ParseError, and whatever else sqlglot raises on hostile input
        raise _rejected("syntax") from None
    statements = [tree for tree in trees if tree is not None]
    if not statements:
        raise _rejected("empty")  # only comments
    if len(statements) > 1:
        raise _rejected("one-statement")
    return statements[0]


def _classes(*names: str) -> tuple[type, ...]:
    # getattr keeps this working if a sqlglot release drops or renames a node class.
    return tuple(cls for cls in (getattr(exp, name, None) for name in names) if cls)


# Nodes that are statements (or write targets) wherever they appear in the tree.
_STATEMENTS = _classes(
    "DML", "DDL", "Insert", "Update", "Delete", "Merge", "Copy", "Create", "Drop",
    "Alter", "AlterRename", "TruncateTable", "Command", "Pragma", "Attach", "Detach",
    "Transaction", "Commit", "Rollback", "Set", "Use", "Analyze", "LoadData", "Into",
    "Grant", "Revoke", "Describe", "Show", "Kill", "Cache", "Uncache", "Refresh",
    "LockingStatement", "Summarize",
)  # fmt: skip


def _is_empty_clause(node: exp.Expr) -> bool:
    if isinstance(node, exp.Select):
        return not node.expressions
    if isinstance(node, (exp.Group, exp.Order)):
        return not any(node.args.values())
    return False


def _check_tables(nodes: list[exp.Expr], views: set[str]) -> set[str]:
    used: set[str] = set()
    for node in nodes:
        if isinstance(node, exp.Table):
            if node.arg_key == "indexed":
                continue  # INDEXED BY names an index, not a table
            if isinstance(node.this, exp.Func):
                continue  # table-valued function: the function rule checks it
            if not isinstance(node.this, (exp.Identifier, exp.Var)):
                raise _not_listed("table", views)
            qualified = node.args.get("db") or node.args.get("catalog")
            name = node.name
        elif isinstance(node, exp.In) and isinstance(node.args.get("field"), exp.Column):
            # SQLite reads `x IN name` as membership in the table or CTE called name.
            column = node.args["field"]
            qualified = column.args.get("table") or column.args.get("db")
            name = column.name
        elif isinstance(node, exp.In) and isinstance(node.args.get("field"), exp.Literal):
            # ...and `x IN 'name'` too: SQLite takes a string where it wants an identifier.
            qualified, name = None, str(node.args["field"].this)
        else:
            continue
        if qualified:
            raise _rejected("schema")
        folded = _fold(name)
        if folded in _visible_ctes(node):
            continue
        if folded not in views:
            raise _not_listed("table", views)
        used.add(folded)
    return used


def _visible_ctes(node: exp.Expr) -> set[str]:
    # SQLite sees every CTE of a WITH clause in the main query and in each CTE body
    # (forward references too), and nothing of a WITH inside a subquery from outside it:
    # exactly the WITH clauses on the node's ancestors.
    names: set[str] = set()
    ancestor = node.parent
    while ancestor is not None:
        with_ = ancestor.args.get("with_") or ancestor.args.get("with")
        if isinstance(with_, exp.With):
            names.update(_fold(cte.alias) for cte in with_.expressions)
        ancestor = ancestor.parent
    return names


# With FUNCTIONS empty, typed Func nodes come only from syntax. These few are operators
# SQLite runs as functions (and its authorizer sees as such), so they need the list.
_OPERATOR_FUNCS = {
    exp.JSONExtract: "->",
    exp.JSONExtractScalar: "->>",
    exp.RegexpLike: "regexp",
    exp.CurrentDate: "current_date",
    exp.CurrentTime: "current_time",
    exp.CurrentTimestamp: "current_timestamp",
}
# Plain syntax: AND/OR and COLLATE are Func subclasses in sqlglot, and so are these.
_SYNTAX_FUNCS = (exp.Connector, exp.Binary, exp.Case, exp.Cast, exp.Exists)


def _check_functions(nodes: list[exp.Expr], functions: set[str]) -> None:
    for node in nodes:
        if not isinstance(node, exp.Func):
            continue
        if type(node) is exp.Anonymous:
            name = node.name
        elif type(node) in _OPERATOR_FUNCS:
            name = _OPERATOR_FUNCS[type(node)]
        elif isinstance(node, _SYNTAX_FUNCS) or (
            isinstance(node, exp.If) and isinstance(node.parent, exp.Case)  # a CASE branch
        ):
            continue
        else:
            name = ""  # a typed node this check does not know: refuse rather than guess
        if not name or _fold(name) not in functions:
            raise _not_listed("function", functions)


# Text helpers ---------------------------------------------------------------------------

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _fold(name: str) -> str:
    # SQLite compares names case-insensitively for ASCII only; str.lower() would also fold
    # e.g. the Kelvin sign into "k" and match a name SQLite treats as different.
    return name.translate(_ASCII_LOWER)


def _is_encodable(sql: str) -> bool:
    try:
        sql.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
