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

Three modules, along the seam above: sql_tokens.py holds the rules that read tokens,
this module the entry point and the rules that read the tree, refusals.py the messages
both give.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import ErrorLevel
from sqlglot.tokens import Token

from ..backend.base import QueryDialect
from ..errors import QueryRejected
from .refusals import not_listed as _not_listed
from .refusals import rejected as _rejected
from .sql_tokens import check_placeholders, check_semicolons, tokenize, without_comments

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

    tokens = tokenize(dialect, sql)
    check_semicolons(dialect, sql, tokens)
    named = check_placeholders(dialect, sql, tokens, binds)
    tree = _parse(dialect, *without_comments(dialect, sql, tokens))

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
