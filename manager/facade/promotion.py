"""Entry points for remembering: the promotion gate, and the memory view's review."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import promotion
from ..clock import now_iso
from ..identity import Identity
from ..output.results import ToolOutput
from ..promotion import memory_view
from .core import ManagerCore


class RememberMethods(ManagerCore):
    def remember(
        self,
        identity: Identity,
        content: str,
        kind: str = "note",
        subject: str | None = None,
        predicate: str | None = None,
        evidence: Sequence[str] | None = None,
        scope: str | None = None,
        *,
        policy: dict[str, Any] | None = None,
        sampler: promotion.Sampler | None = None,
        confirm: Callable[[str], bool | None] | None = None,
    ) -> ToolOutput:
        """Handler `remember`: propose a durable memory; the promotion gate decides (manager/promotion/)."""
        proposal = promotion.Proposal(content, kind, subject, predicate, tuple(evidence or ()), scope or "")
        return promotion.remember(
            self.backend,
            identity,
            proposal,
            caps=self.caps,
            embedder=lambda: self.embedder,
            row_policy=policy,
            sampler=sampler,
            confirm=confirm,
        )

    def show_memory(self, identity: Identity, *, limit: int = 50, review_tool: str | None = None) -> ToolOutput:
        """Handler `show_memory`: the caller's memories and candidates; `review_tool` is the review row
        the caller may call (the toolbox passes it), so the view offers Approve and Reject only then."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return memory_view.memory_view(s, now, limit=min(limit, self.caps.max_rows), review_tool=review_tool)

    def review_candidate(self, identity: Identity, candidate_id: str, version: int, decision: str) -> ToolOutput:
        """Handler `review_candidate`: approve or reject the caller's own candidate at the version shown."""
        return memory_view.decision_output(memory_view.decide(self, identity, candidate_id, version, decision))
