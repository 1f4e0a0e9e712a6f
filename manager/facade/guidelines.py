"""Entry points for guidelines and persona: the budget's policy updates, personas."""

from __future__ import annotations

from typing import Any

from ..backend.base import Row
from ..claims import guidelines
from ..clock import now_iso
from ..identity import Identity
from ..limits import ContextBudget
from .core import ManagerCore


class GuidelineMethods(ManagerCore):
    def set_context_budget(
        self,
        identity: Identity,
        budget: dict[str, Any],
        *,
        content: str | None = None,
        expected_version: int | None = None,
    ) -> Row:
        """A policy update of the tenant-wide budget: validated, the old version retired, the next inserted."""
        checked = ContextBudget.from_guideline(budget)
        with self.backend.session(identity) as s:
            latest = s.fetch_one("guideline_latest_by_row", row_id=guidelines.BUDGET_ROW_ID)
            text = content or (latest["content"] if latest else "The context budget of this tenant.")
            return guidelines.update_guideline(
                s,
                identity,
                row_id=guidelines.BUDGET_ROW_ID,
                key=guidelines.BUDGET_KEY,
                content=text,
                now=now_iso(),
                content_json=checked.to_json(),
                expected_version=expected_version,
            )

    def personas(self, identity: Identity, key: str | None = None) -> dict[str, Row]:
        with self.backend.session(identity) as s:
            return guidelines.current_personas(s, now_iso(), key)
