"""Entry points for remembering: the promotion gate, and the memory view's review."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import promotion
from ..clock import now_iso
from ..errors import InvalidArgument
from ..identity import Identity
from ..output.results import ToolOutput
from ..promotion import memory_view
from ..promotion.render import answer
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

    def remember_imported(
        self,
        identity: Identity,
        proposals: Sequence[promotion.Proposal],
        *,
        policy: dict[str, Any] | None = None,
    ) -> list[ToolOutput]:
        """An operator's import from another tool (`memgate import --from ...`, manager/portability/):
        each proposal through the promotion gate as `remember` runs it (every check, the tenant's
        policy and assessor), but without the per-caller rate cap, which bounds an agent, not an
        operator's file; what the gate holds back waits for review (`memgate candidates`). No tool
        handler names this method."""
        answers = []
        for proposal in proposals:
            try:
                answers.append(
                    promotion.remember(
                        self.backend,
                        identity,
                        proposal,
                        caps=self.caps,
                        embedder=lambda: self.embedder,
                        row_policy=policy,
                        imported=True,
                    )
                )
            except InvalidArgument as exc:  # bad input is refused for this proposal alone
                answers.append(answer("refused", f"invalid:{exc.field or 'input'}", f"refused: {exc.message}."))
        return answers

    def show_memory(self, identity: Identity, *, limit: int = 50, review_tool: str | None = None) -> ToolOutput:
        """Handler `show_memory`: the caller's memories and candidates; `review_tool` is the review row
        the caller may call (the toolbox passes it), so the view offers Approve and Reject only then."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return memory_view.memory_view(s, now, limit=min(limit, self.caps.max_rows), review_tool=review_tool)

    def review_candidate(self, identity: Identity, candidate_id: str, version: int, decision: str) -> ToolOutput:
        """Handler `review_candidate`: approve or reject the caller's own candidate at the version shown."""
        return memory_view.decision_output(memory_view.decide(self, identity, candidate_id, version, decision))
