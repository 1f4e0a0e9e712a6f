"""The function allowlist in families: a one-line summary for the tool description, the full list for a resource.

The names come from the backend's QueryDialect; the families are a reading aid, so a name
no family knows is still listed (under "other") and still allowed.
"""

from __future__ import annotations

from ..backend.base import QueryDialect

__all__ = ["function_families", "functions_summary", "functions_text"]

#: family -> member names, most useful first (names of any dialect; absent ones are skipped)
_FAMILIES: dict[str, tuple[str, ...]] = {
    "aggregate": ("count", "sum", "avg", "min", "max", "total", "group_concat", "listagg"),
    "window": (
        "row_number",
        "rank",
        "dense_rank",
        "lag",
        "lead",
        "ntile",
        "percent_rank",
        "cume_dist",
        "first_value",
        "last_value",
        "nth_value",
    ),
    "date/time": (
        "date",
        "datetime",
        "strftime",
        "julianday",
        "time",
        "current_date",
        "current_time",
        "current_timestamp",
        "sysdate",
        "systimestamp",
        "to_date",
        "to_char",
        "trunc",
        "add_months",
        "months_between",
        "extract",
    ),
    "text": (
        "length",
        "substr",
        "instr",
        "lower",
        "upper",
        "trim",
        "ltrim",
        "rtrim",
        "replace",
        "printf",
        "regexp_like",
        "regexp_substr",
        "regexp_replace",
        "lpad",
        "rpad",
        "concat",
    ),
    "JSON": ("json_extract", "->", "->>", "json_value", "json_query"),
    "number": ("abs", "round", "to_number", "mod", "floor", "ceil"),
    "null": ("coalesce", "ifnull", "nullif", "iif", "nvl", "nvl2", "decode", "typeof"),
}


def function_families(dialect: QueryDialect) -> dict[str, list[str]]:
    """The dialect's allowed functions by family, in _FAMILIES order; unknown names under "other"."""
    allowed = set(dialect.allowed_functions)
    families = {family: [n for n in names if n in allowed] for family, names in _FAMILIES.items()}
    known = {n for names in _FAMILIES.values() for n in names}
    families["other"] = sorted(allowed - known)
    return {family: names for family, names in families.items() if names}


def functions_summary(dialect: QueryDialect, full_list: str | None = None) -> str:
    """One line: every function, or where the full list by family is (a resource's URI)."""
    if full_list is None:
        return f"Functions: {', '.join(sorted(dialect.allowed_functions))}."
    return f"Functions by family: {full_list}."


def functions_text(dialect: QueryDialect) -> str:
    """Every function execute_query may call, by family (the resource's text)."""
    lines = [
        f"Functions execute_query may call ({dialect.name} syntax), by family. "
        "Operators such as LIKE, CASE and CAST are syntax, not functions; any function not listed is refused."
    ]
    lines += [f"- {family}: {', '.join(names)}" for family, names in function_families(dialect).items()]
    return "\n".join(lines)
