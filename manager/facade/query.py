"""Entry points for execute_query and reviewed reports."""

from __future__ import annotations

from typing import Any

from ..clock import as_of_iso, now_iso
from ..identity import Identity
from ..output.results import ToolOutput
from ..query import execute as query_run
from ..query import functions as query_functions
from ..query import reports
from .core import ManagerCore


class QueryMethods(ManagerCore):
    def execute_query(
        self, identity: Identity, query: str, max_rows: int | None = None, as_of: str | None = None
    ) -> ToolOutput:
        """Handler `execute_query`: one read-only SELECT over the reviewed views of the caller's current rows;
        with `as_of` (ISO-8601), the rows as they stood then (the call's evaluation time is that moment)."""
        now = now_iso()
        at = as_of_iso(as_of, now=now) if as_of is not None else None
        return query_run.execute_query(self.backend, self.caps, identity, query, max_rows, at or now, as_of=at)

    def query_views_help(self, functions_at: str | None = None) -> str:
        """The reviewed views and their columns, read from the catalog: execute_query's description.
        `functions_at` names where the full function list is (then only families are listed)."""
        return query_run.describe_views(
            self.backend.query_catalog(), self.backend.query_dialect, self.caps, functions_at
        )

    def query_functions_help(self) -> str:
        """Every function a query may call, by family (the memgate://query/functions resource)."""
        return query_functions.functions_text(self.backend.query_dialect)

    def run_report(self, identity: Identity, binds: dict[str, Any], *, policy: dict[str, Any]) -> ToolOutput:
        """Handler `report`: the row's reviewed SELECT (admitted when the row was written) with these binds."""
        return reports.run_report(self.backend, self.caps, identity, policy["report"], binds, now_iso())
