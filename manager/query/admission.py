"""Admission check for `execute_query`: one read-only SELECT over allowlisted views.

This is the friendly early error, not the boundary. The wall is the read-only SQLite
connection and its authorizer (and the Oracle read-only account): whatever this check
misses, they still refuse. The rules read a sqlglot syntax tree, not the raw string; only
the semicolon and bind-placeholder rules read tokens, because the parser throws away what
they must see. The grammar (tokenizer, parser, string literals, function names, how
names fold) is the backend's QueryDialect; the rules here hold for any of them.

Recursive CTEs are admitted; the runtime deadline on the connection ends runaway ones.
A deadline cannot end one function call, so a function whose cost the database does not
bound itself gets a call limit from the dialect (the size rule). Messages name the rule
that failed and never echo table, schema or function names the caller wrote.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import ErrorLevel
from sqlglot.tokens import Token, TokenType

from ..backend.base import QueryDialect
from ..errors import QueryRejected

__all__ = ["AdmittedQuery", "admit_query"]


@dataclass(frozen=True, slots=True)
class AdmittedQuery:
    """A query that passed admission: its text, the (lower-cased) views it reads, its named binds."""

    sql: str
    tables: frozenset[str]
    #: the `:name` bind parameters it uses (only when admitted with binds=True)
    binds: frozenset[str] = frozenset()


def admit_query(
    sql: str,
    *,
    dialect: QueryDialect,
    allowed_views: set[str],
    allowed_functions: set[str] | frozenset[str] | None = None,
    max_chars: int = 32000,
    binds: bool = False,
) -> AdmittedQuery:
    """Admit one SELECT that reads only `allowed_views` and calls only `allowed_functions`
    (default: the dialect's allowlist), in `dialect`'s grammar.

    `binds=True` admits named bind parameters (`:name`), for a statement an operator
    reviewed (a report row), never for one a model wrote: the backend binds their values.
    Every other placeholder form is still refused. Raises QueryRejected, whose `rule`
    names the failed rule, for anything else.
    """
    if not isinstance(sql, str):
        raise _rejected("syntax", dialect=dialect)
    if len(sql) > max_chars:
        raise QueryRejected(
            f"query refused (rule length): it is {len(sql)} characters long and the limit is {max_chars}.",
            rule="length",
            hint="Ask for fewer columns or split the question into smaller queries.",
        )
    if not sql.strip():
        raise _rejected("empty")
    if "\x00" in sql or not _is_encodable(sql):
        raise _rejected("characters")

    tokens = _tokenize(dialect, sql)
    _check_semicolons(dialect, sql, tokens)
    named = _check_placeholders(dialect, sql, tokens, binds)
    tree = _parse(dialect, *_without_comments(dialect, sql, tokens))

    if not isinstance(tree, (exp.Select, exp.SetOperation)):
        raise _rejected("select-only")
    nodes = list(tree.walk())
    if any(isinstance(node, _STATEMENTS) for node in nodes):
        raise _rejected("nested-statement")
    if any(isinstance(node, _SNAPSHOTS) for node in nodes):
        raise _rejected("snapshot")
    if any(_is_empty_clause(node) for node in nodes):
        raise _rejected("syntax", dialect=dialect)  # sqlglot accepts `SELECT` alone or `GROUP BY` with nothing

    fold = dialect.fold
    views = {fold(name) for name in allowed_views}
    functions = {fold(name) for name in (dialect.allowed_functions if allowed_functions is None else allowed_functions)}
    tables = _check_tables(nodes, views, fold)
    _check_qualifiers(nodes, fold)
    _check_functions(nodes, functions, dialect)
    return AdmittedQuery(sql=sql.strip(), tables=frozenset(tables), binds=frozenset(named))


# Rules --------------------------------------------------------------------------------

_REASONS = {
    "empty": ("it contains no SQL statement.", "Send one SELECT statement."),
    "characters": (
        "it contains a NUL character or an unpaired surrogate.",
        "Remove control characters from the query.",
    ),
    "syntax": (
        "it could not be parsed as {dialect} SQL.",
        "Send one SELECT (or WITH ... SELECT) statement in {dialect} syntax.",
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
    "named-binds": (
        "a report binds values only as :name (a letter or _, then letters, digits or _).",
        "Write each bind as :name and declare name in the report's schema.",
    ),
    "bind-name": (
        "{reason}.",
        "Rename the bind and its schema property, e.g. :since_date for :date.",
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
    "snapshot": (
        "it reads a table as of another time or version (AS OF, VERSIONS BETWEEN).",
        "Query the views as they are now; the *_history views show every version.",
    ),
    "qualifier": (
        "it qualifies a name by something that is no view, alias or WITH name of the query.",
        "Qualify columns only by a view name or an alias the query defines.",
    ),
    "size": (
        "{reason}.",
        "Write such arguments as short literals: a table cell shows at most a few hundred characters.",
    ),
}


def _rejected(
    rule: str, hint: str | None = None, *, dialect: QueryDialect | None = None, reason: str | None = None
) -> QueryRejected:
    text, default_hint = _REASONS[rule]
    if dialect is not None:  # the syntax rule names the grammar it parsed with
        text, default_hint = text.format(dialect=dialect.name), default_hint.format(dialect=dialect.name)
    if reason is not None:  # the size and bind-name rules say which limit or name they found
        text = text.format(reason=reason)
    return QueryRejected(f"query refused (rule {rule}): {text}", rule=rule, hint=hint or default_hint)


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

_PLACEHOLDER_TOKENS = {
    TokenType.PLACEHOLDER,
    TokenType.PARAMETER,
    TokenType.SESSION_PARAMETER,
    TokenType.COLON,
    TokenType.HASH,
}
_NAME_TOKENS = {TokenType.VAR, TokenType.IDENTIFIER}


def _tokenize(dialect: QueryDialect, sql: str) -> list[Token]:
    try:
        return dialect.sqlglot_dialect.tokenize(sql)
    except RecursionError:
        raise _rejected("complexity") from None
    except Exception:  # sqlglot raises TokenError, and the odd ValueError on odd input
        raise _rejected("syntax", dialect=dialect) from None


def _without_comments(dialect: QueryDialect, sql: str, tokens: list[Token]) -> tuple[str, list[Token]]:
    """The query re-spelt from its tokens alone, when it has comments.

    Comments carry no meaning, but sqlglot's parser trips on some placements
    (`ORDER /* c */ BY`). Tokens are what admission checks either way; the database
    runs the original text.
    """
    if not any(token.comments for token in tokens):
        return sql, tokens
    clean = " ".join(sql[token.start : token.end + 1] for token in tokens)
    return clean, _tokenize(dialect, clean)


def _check_semicolons(dialect: QueryDialect, sql: str, tokens: list[Token]) -> None:
    # Blank out genuine single-quoted literals; any `;` left (in code, comments or quoted
    # identifiers) is refused. Requiring the literal's exact shape keeps a token
    # sqlglot merged differently (a COMMAND tail, a $$ string) from hiding a separator.
    text = list(sql)
    for token in tokens:
        if token.token_type is TokenType.STRING:
            literal = sql[token.start : token.end + 1]
            if dialect.string_literal.fullmatch(literal):
                text[token.start : token.end + 1] = " " * len(literal)
    if ";" in "".join(text):
        raise _rejected("one-statement")


_BIND_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_placeholders(dialect: QueryDialect, sql: str, tokens: list[Token], binds: bool) -> set[str]:
    """Refuse placeholders; with `binds`, admit `:name` ones and return their names."""
    named: set[str] = set()
    previous: Token | None = None
    for i, token in enumerate(tokens):
        first = sql[token.start] if token.start < len(sql) else ""
        if token.token_type is TokenType.DCOLON:
            raise _rejected("syntax", dialect=dialect)  # `::` casts belong to neither SQLite nor Oracle
        if previous is not None and previous.token_type is TokenType.COLON and _named_bind(sql, previous, token):
            pass  # the name of a `:name` bind admitted below
        elif token.token_type in _PLACEHOLDER_TOKENS or (
            first == "$" and token.token_type not in (TokenType.STRING, TokenType.IDENTIFIER)
        ):
            glued = previous is not None and previous.end + 1 == token.start
            after_name = glued and previous.token_type in _NAME_TOKENS
            if token.token_type is TokenType.PARAMETER and after_name:
                raise _rejected("schema")  # name@link: an Oracle-style database link
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if not binds:
                raise _rejected("placeholder")
            if token.token_type is not TokenType.COLON or following is None or not _named_bind(sql, token, following):
                raise _rejected("named-binds")
            name = sql[following.start : following.end + 1]
            if dialect.fold(name) in dialect.reserved_bind_names:
                raise _rejected(
                    "bind-name", reason=f":{name} is a word {dialect.name} reserves, which it refuses as a bind name"
                )
            named.add(name)
        previous = token
    return named


def _named_bind(sql: str, colon: Token, name: Token) -> bool:
    """`:` glued to a bare word (a keyword too, as in `:date`): one named bind parameter."""
    return colon.end + 1 == name.start and _BIND_NAME.fullmatch(sql[name.start : name.end + 1]) is not None


# Tree ---------------------------------------------------------------------------------


def _parse(dialect: QueryDialect, sql: str, tokens: list[Token]) -> exp.Expr:
    try:
        parser = dialect.parser(dialect=dialect.sqlglot_dialect, error_level=ErrorLevel.IMMEDIATE)
        trees = parser.parse(tokens, sql)
    except RecursionError:
        raise _rejected("complexity") from None
    except Exception:  # ParseError, and whatever else sqlglot raises on hostile input
        raise _rejected("syntax", dialect=dialect) from None
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


# Reads of another moment's data (Oracle's AS OF / VERSIONS BETWEEN flashback clauses).
_SNAPSHOTS = _classes("Version")


def _is_empty_clause(node: exp.Expr) -> bool:
    if isinstance(node, exp.Select):
        return not node.expressions
    if isinstance(node, (exp.Group, exp.Order)):
        return not any(node.args.values())
    return False


def _check_tables(nodes: list[exp.Expr], views: set[str], fold) -> set[str]:
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
        folded = fold(name)
        if folded in _visible_ctes(node, fold):
            continue
        if folded not in views:
            raise _not_listed("table", views)
        used.add(folded)
    return used


def _visible_ctes(node: exp.Expr, fold) -> set[str]:
    # SQLite sees every CTE of a WITH clause in the main query and in each CTE body
    # (forward references too), and nothing of a WITH inside a subquery from outside it:
    # exactly the WITH clauses on the node's ancestors.
    names: set[str] = set()
    ancestor = node.parent
    while ancestor is not None:
        with_ = ancestor.args.get("with_") or ancestor.args.get("with")
        if isinstance(with_, exp.With):
            names.update(fold(cte.alias) for cte in with_.expressions)
        ancestor = ancestor.parent
    return names


def _check_qualifiers(nodes: list[exp.Expr], fold) -> None:
    # `x.y` is a column of the table or alias x; on Oracle, when no x is in the query, it is
    # also how a package function is called without parentheses (DBMS_RANDOM.VALUE), so a
    # qualifier must name a table, alias or WITH name of the query itself.
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, exp.Table):
            names.update(fold(n) for n in (node.name, node.alias) if n)
        elif isinstance(node, (exp.Subquery, exp.CTE, exp.TableAlias)) and node.alias:
            names.add(fold(node.alias))
    for node in nodes:
        if isinstance(node, exp.Column) and node.table:
            if node.args.get("db") or node.args.get("catalog"):
                raise _rejected("schema")
            if fold(node.table) not in names:
                raise _rejected("qualifier")


# Plain syntax: AND/OR and COLLATE are Func subclasses in sqlglot, and so are these.
_SYNTAX_FUNCS = (exp.Connector, exp.Binary, exp.Case, exp.Cast, exp.Exists)


def _check_functions(nodes: list[exp.Expr], functions: set[str], dialect: QueryDialect) -> None:
    # The dialect's parser keeps calls as exp.Anonymous, so typed Func nodes come only from
    # syntax; those the database runs as functions are named by dialect.operator_functions.
    for node in nodes:
        if not isinstance(node, exp.Func):
            continue
        if type(node) is exp.Anonymous:
            name = node.name
        elif type(node) in dialect.operator_functions:
            name = dialect.operator_functions[type(node)]
        elif isinstance(node, _SYNTAX_FUNCS) or (
            isinstance(node, exp.If) and isinstance(node.parent, exp.Case)  # a CASE branch
        ):
            continue
        else:
            name = ""  # a typed node this check does not know: refuse rather than guess
        folded = dialect.fold(name)
        if not name or folded not in functions:
            raise _not_listed("function", functions)
        limit = dialect.call_limits.get(folded)
        if limit is not None and (reason := limit(node.expressions)):
            raise _rejected("size", reason=reason)


# Text helpers ---------------------------------------------------------------------------


def _is_encodable(sql: str) -> bool:
    try:
        sql.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
