"""execute_query: admission, then the walled read-only run, then shaped cells in one table.

The reviewed views come from the backend's catalog (sql/<dialect>/query_views.sql), so
admission, the database wall and the tool description all read one list. Nothing here
is dialect SQL: the backend runs the query behind its own wall and hands back rows and
declared types.
"""

from __future__ import annotations

from ..backend.base import Backend, QueryDialect, ViewCatalog
from ..identity import Identity
from ..limits import CapsSettings
from ..output.results import ToolOutput
from ..output.tables import render_table
from ..tokens import count_tokens
from .admission import admit_query

__all__ = ["describe_views", "execute_query"]

_LOB_WORDS = ("LOB", "BLOB", "CLOB", "NCLOB", "BFILE")


def execute_query(backend: Backend, caps: CapsSettings, identity: Identity, sql: str,
                  max_rows: int | None = None) -> ToolOutput:
    """Run one read-only SELECT; the text is a metadata line and a markdown table."""
    catalog = backend.query_catalog()
    admitted = admit_query(sql, dialect=backend.query_dialect, allowed_views=set(catalog),
                           max_chars=caps.query_max_chars)
    cap = caps.rows(max_rows)
    result = backend.run_readonly_query(identity, admitted.sql, cap, caps.query_timeout_s,
                                         max_chars=caps.cell_chars)
    text = render_table(result.columns, result.rows, truncated=result.truncated,
                        declared_types=result.declared_types, max_chars=caps.cell_chars,
                        extra={"row_cap": cap})
    return ToolOutput(text=text, rows=len(result.rows), truncated=result.truncated, tokens=count_tokens(text))


def describe_views(catalog: ViewCatalog, dialect: QueryDialect, caps: CapsSettings) -> str:
    """The part of the tool description that lists what the caller may query, from the catalog."""
    if not catalog:
        return "No views are available to query."
    lines = [f"Views you can query ({dialect.name} syntax; every view holds only your tenant's rows):"]
    for view in sorted(catalog):
        columns = ", ".join(f"{name} {_shown_type(declared)}".rstrip() for name, declared in catalog[view])
        lines.append(f"- {view}: {columns}")
    lines += [
        "vector columns show as <VECTOR(dim)> and LOB columns as <LOB> (never read; "
        "length() and substr() work on them).",
        f"Functions: {', '.join(sorted(dialect.allowed_functions))}; LIKE, GLOB, CASE, CAST are fine.",
        f"Rows: {caps.default_rows} by default, max_rows up to {caps.max_rows}; the first line says whether "
        f"more rows exist. Text cells are clipped at {caps.cell_chars} characters. One SELECT (or WITH) "
        "per call, no semicolon, no placeholders.",
    ]
    return "\n".join(lines)


def _shown_type(declared: str | None) -> str:
    word = (declared or "").upper()
    if word.startswith("VECTOR"):
        return "vector"
    if any(w in _LOB_WORDS for w in word.replace("(", " ").split()):
        return "LOB"
    return word.lower()
