"""The refusals execute_query admission gives: one QueryRejected per rule, with a reason and a hint.

Messages name the rule that failed and never echo table, schema or function names the caller
wrote (a `table` or `function` refusal lists what is allowed instead). Shared by the token
rules (sql_tokens.py) and the tree rules (admission.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..backend.base import QueryDialect
from ..errors import QueryRejected

__all__ = ["not_listed", "rejected"]


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


def rejected(
    rule: str, hint: str | None = None, *, dialect: QueryDialect | None = None, reason: str | None = None
) -> QueryRejected:
    text, default_hint = _REASONS[rule]
    if dialect is not None:  # the syntax rule names the grammar it parsed with
        text, default_hint = text.format(dialect=dialect.name), default_hint.format(dialect=dialect.name)
    if reason is not None:  # the size and bind-name rules say which limit or name they found
        text = text.format(reason=reason)
    return QueryRejected(f"query refused (rule {rule}): {text}", rule=rule, hint=hint or default_hint)


def not_listed(rule: str, allowed: Iterable[str]) -> QueryRejected:
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
