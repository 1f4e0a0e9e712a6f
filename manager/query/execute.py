"""execute_query: admission, then the walled read-only run, then shaped cells in one table.

The reviewed views come from the backend's catalog (sql/<dialect>/query_views.sql), so
admission, the database wall and the tool description all read one list. Nothing here
is dialect SQL: the backend runs the query behind its own wall and hands back rows and
declared types.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..backend.base import Backend, QueryDialect, ViewCatalog
from ..identity import Identity
from ..limits import CapsSettings
from ..output.results import ToolOutput
from ..output.tables import render_table
from ..tokens import count_tokens
from .admission import admit_query
from .functions import functions_summary

__all__ = ["describe_views", "execute_query", "run_admitted"]

_LOB_WORDS = ("LOB", "BLOB", "CLOB", "NCLOB", "BFILE")
#: a versioned view's every-version twin, and the column that labels each version
_HISTORY, _STATUS = "_history", "status"
_MEMORY = "_memory"  # the views' common suffix, left out where they are named in a list
_STATUSES = ("current", "superseded", "expired", "deleted", "pending")


def execute_query(
    backend: Backend,
    caps: CapsSettings,
    identity: Identity,
    sql: str,
    max_rows: int | None,
    now: str,
    *,
    as_of: str | None = None,
) -> ToolOutput:
    """Run one read-only SELECT, current rows as of `now`; the text is a metadata line and a markdown table.
    `as_of` (the caller named a past moment, which `now` then is) is said in the metadata line."""
    catalog = backend.query_catalog()
    admitted = admit_query(
        sql, dialect=backend.query_dialect, allowed_views=set(catalog), max_chars=caps.query_max_chars
    )
    return run_admitted(backend, caps, identity, admitted.sql, max_rows, now, as_of=as_of)


def run_admitted(
    backend: Backend,
    caps: CapsSettings,
    identity: Identity,
    sql: str,
    max_rows: int | None,
    now: str,
    binds: Mapping[str, Any] | None = None,
    *,
    as_of: str | None = None,
) -> ToolOutput:
    """Run a statement that passed admission (now, or when its report row was written) behind the
    read-only wall: capped, cells shaped, one markdown table under a metadata line."""
    cap = caps.rows(max_rows)
    result = backend.run_readonly_query(
        identity, sql, cap, caps.query_timeout_s, now, max_chars=caps.cell_chars, binds=binds
    )
    text = render_table(
        result.columns,
        result.rows,
        truncated=result.truncated,
        declared_types=result.declared_types,
        max_chars=caps.cell_chars,
        extra={"row_cap": cap, "as_of": as_of},
    )
    return ToolOutput(text=text, rows=len(result.rows), truncated=result.truncated, tokens=count_tokens(text))


def describe_views(
    catalog: ViewCatalog, dialect: QueryDialect, caps: CapsSettings, functions_at: str | None = None
) -> str:
    """The part of the tool description that lists what the caller may query, from the catalog.

    Compact, because hosts send it to the model on every turn: the columns every view
    shares are listed once, each view then names only its own; columns are text unless a
    type is shown; a `<view>_history` view (the view's columns plus `status`) is named
    beside its view; the functions are summarised by family when `functions_at` says where
    the full list is (a resource's URI), else listed.
    Vector columns are left out: a query reads them only as a marker, never their values.
    """
    if not catalog:
        return "No views are available to query."
    history = {
        view: f"{view}{_HISTORY}"
        for view in catalog
        if catalog.get(f"{view}{_HISTORY}") == (*catalog[view], (_STATUS, None))
    }
    listed = [view for view in sorted(catalog) if view not in history.values()]
    shared = [c for c in catalog[listed[0]] if all(c in catalog[v] for v in listed)] if len(listed) > 1 else []
    lines = [f"{dialect.name} views of your rows current now; columns text unless typed."]
    if shared:
        lines.append(f"Every view also has: {_columns(shared)}.")
    lines += [
        f"{view}: {_columns([c for c in catalog[view] if c not in shared and not _is_vector(c)])}" for view in listed
    ]
    if history:
        lines.append(
            f"{_HISTORY} views of {', '.join(sorted(v.removesuffix(_MEMORY) for v in history))}: "
            f"all versions + {_STATUS} {'|'.join(_STATUSES)}."
        )
    lines += [
        functions_summary(dialect, functions_at),
        f"Rows: {caps.default_rows}, max_rows up to {caps.max_rows}; cells cut at {caps.cell_chars} chars; one SELECT.",
    ]
    return "\n".join(lines)


def _columns(columns) -> str:
    return ", ".join(f"{name} {_shown_type(declared)}".rstrip() for name, declared in columns)


_TEXT_TYPES = ("text", "varchar", "varchar2", "nvarchar2", "char", "nchar", "")


def _is_vector(column) -> bool:
    return (column[1] or "").upper().startswith("VECTOR")


def _shown_type(declared: str | None) -> str:
    word = (declared or "").upper()
    if word.startswith("VECTOR"):
        return "vector"
    if any(w in _LOB_WORDS for w in word.replace("(", " ").split()):
        return "LOB"
    shown = word.lower()
    return "" if shown.split("(")[0] in _TEXT_TYPES else shown
