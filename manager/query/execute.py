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
#: a versioned view's every-version twin, and the column that labels each version
_HISTORY, _STATUS = "_history", "status"
_STATUSES = ("current", "superseded (a newer or more specific version is in force)", "expired", "deleted",
             "pending (not valid yet)")


def execute_query(backend: Backend, caps: CapsSettings, identity: Identity, sql: str,
                  max_rows: int | None, now: str) -> ToolOutput:
    """Run one read-only SELECT, current rows as of `now`; the text is a metadata line and a markdown table."""
    catalog = backend.query_catalog()
    admitted = admit_query(sql, dialect=backend.query_dialect, allowed_views=set(catalog),
                           max_chars=caps.query_max_chars)
    cap = caps.rows(max_rows)
    result = backend.run_readonly_query(identity, admitted.sql, cap, caps.query_timeout_s, now,
                                         max_chars=caps.cell_chars)
    text = render_table(result.columns, result.rows, truncated=result.truncated,
                        declared_types=result.declared_types, max_chars=caps.cell_chars,
                        extra={"row_cap": cap})
    return ToolOutput(text=text, rows=len(result.rows), truncated=result.truncated, tokens=count_tokens(text))


def describe_views(catalog: ViewCatalog, dialect: QueryDialect, caps: CapsSettings) -> str:
    """The part of the tool description that lists what the caller may query, from the catalog.

    Compact: the columns every view shares are listed once, and a `<view>_history` view
    (the view's columns plus `status`) is named beside its view instead of listed again.
    """
    if not catalog:
        return "No views are available to query."
    history = {view: f"{view}{_HISTORY}" for view in catalog
               if catalog.get(f"{view}{_HISTORY}") == (*catalog[view], (_STATUS, None))}
    listed = [view for view in sorted(catalog) if view not in history.values()]
    shared = [c for c in catalog[listed[0]] if all(c in catalog[v] for v in listed)]
    lines = [(f"Views you can query ({dialect.name} syntax). Every view holds only rows you may see (your "
              "tenant's, shared with you or scoped to your user, agent or thread), and only rows current now.")]
    if history:
        lines.append(f"{', '.join(sorted(history))} show one row per claim or key: the version in force for you. "
                     f"Each <view>{_HISTORY} view shows every version, with a {_STATUS} column: "
                     f"{', '.join(_STATUSES)}.")
    if len(listed) > 1 and shared:
        lines.append(f"Every view has: {_columns(shared)}.")
    for view in listed:
        also = f" (+ {history[view]})" if view in history else ""
        lines.append(f"- {view}{also}: {_columns([c for c in catalog[view] if c not in shared])}")
    lines += [
        "vector columns show as <VECTOR(dim)> and LOB columns as <LOB> (never read; "
        "length() and substr() work on them).",
        f"Functions: {', '.join(sorted(dialect.allowed_functions))}; LIKE, GLOB, CASE, CAST are fine.",
        f"Rows: {caps.default_rows} by default, max_rows up to {caps.max_rows}; the first line says whether "
        f"more rows exist. Text cells are clipped at {caps.cell_chars} characters. One SELECT (or WITH) "
        "per call, no semicolon, no placeholders.",
    ]
    return "\n".join(lines)


def _columns(columns) -> str:
    return ", ".join(f"{name} {_shown_type(declared)}".rstrip() for name, declared in columns)


def _shown_type(declared: str | None) -> str:
    word = (declared or "").upper()
    if word.startswith("VECTOR"):
        return "vector"
    if any(w in _LOB_WORDS for w in word.replace("(", " ").split()):
        return "LOB"
    return word.lower()
