"""Entry points for toolbox rows: the caller's active tools, seeding, enabling, reports admitted."""

from __future__ import annotations

from typing import Any

from ..backend.base import Row
from ..clock import now_iso
from ..identity import Identity
from ..query import reports
from ..registry import toolbox as toolbox_rows
from .core import ManagerCore


class ToolboxMethods(ManagerCore):
    def active_tools(self, identity: Identity, name: str | None = None) -> list[Row]:
        with self.backend.session(identity) as s:
            return toolbox_rows.active_rows(s, now_iso(), name)

    def tool_existed(self, identity: Identity, name: str) -> bool:
        """Whether the caller ever had a toolbox row named `name`, active or not (within the wall)."""
        with self.backend.session(identity) as s:
            return bool(toolbox_rows.all_versions(s, name))

    def set_tool_enabled(self, identity: Identity, name: str, enabled: bool) -> Row:
        with self.backend.session(identity) as s:
            return toolbox_rows.set_enabled(s, identity, name, enabled, now_iso())

    def seed_tools(self, identity: Identity, definitions: list[dict[str, Any]]) -> list[str]:
        """Insert the tenant-wide rows the tenant does not have yet; a report row's statement is
        admitted first, so a bad one is refused (naming the rule) and nothing is written."""
        self._admit_reports(definitions)
        with self.backend.session(identity) as s:
            return toolbox_rows.seed(s, identity, definitions, now_iso())

    def put_tool(self, identity: Identity, definition: dict[str, Any]) -> Row:
        """Write a tenant-wide toolbox row: version 1, or the next version of the row by that name
        (the one in force is closed). A report's statement is admitted first."""
        self._admit_reports([definition])
        with self.backend.session(identity) as s:
            return toolbox_rows.put(s, identity, definition, now_iso())

    def _admit_reports(self, definitions: list[dict[str, Any]]) -> None:
        for d in definitions:
            if d.get("tool_handler") == reports.REPORT_HANDLER:
                reports.admit_report(self.backend, self.caps, d)

    def upgrade_default_tools(self, identity: Identity, definitions: list[dict[str, Any]]) -> list[str]:
        """Move rows still on a schema an earlier release seeded to the current default; returns their names."""
        with self.backend.session(identity) as s:
            return toolbox_rows.upgrade_defaults(s, identity, definitions, now_iso())
