"""Entry points for claims: the current version with labeled history, and corrections."""

from __future__ import annotations

from typing import Any

from .. import promotion
from ..backend.base import Row
from ..claims import entities, stale
from ..claims.entities import ClaimLookup
from ..claims.render import render_claims
from ..clock import as_of_iso, now_iso
from ..errors import InvalidArgument
from ..identity import Identity
from ..links import kinds as link_kinds
from ..links import traverse as link_traversal
from ..output.results import ToolOutput
from .core import ManagerCore, require_text


class ClaimMethods(ManagerCore):
    def lookup_claims(
        self, identity: Identity, subject: str, predicate: str | None = None, *, now: str | None = None
    ) -> tuple[list[ClaimLookup], bool]:
        with self.backend.session(identity) as s:
            return entities.lookup(s, subject, predicate, now or now_iso(), self.caps.max_rows)

    def lookup_entity(
        self,
        identity: Identity,
        subject: str,
        predicate: str | None = None,
        include_history: bool = True,
        *,
        include_invalid_results: bool | None = None,
        num_hops: int = 0,
        max_linked_results: int = link_kinds.DEFAULT_LINKED,
        as_of: str | None = None,
    ) -> ToolOutput:
        """Handler `lookup_entity`: the current version of a claim and its labeled history.

        `as_of` (ISO-8601) answers as the claim stood then: the versions written by that moment,
        labelled at it (SQLite reads it from the versions and their validity columns; the answer
        is Oracle Flashback's at that moment, tests/backend/contract/test_as_of_flashback.py).

        A claim's non-current versions are its invalid direct results: `include_history`
        shows them, and `include_invalid_results`, when given, is the same switch by the name
        search_memory uses. With `num_hops` each version shown carries its linked memories
        (a correction's predecessor as `is_superseded_by`), whatever the switch says.
        """
        require_text(subject, "subject")
        link_traversal.check_bounds(num_hops, max_linked_results)
        history = include_history if include_invalid_results is None else include_invalid_results
        now = now_iso()
        if as_of is not None:
            now = as_of_iso(as_of, now=now)
        with self.backend.session(identity, now=now) as s:
            claims, more = entities.lookup(s, subject, predicate, now, self.caps.max_rows)
            versions = [v for c in claims for v in ([c.current] if c.current else []) + c.history]
            notes = stale.stale_facts(
                s,
                {v.id: stale.refs_of(v.row) for v in versions},
                now,
                own_claims={v.id: (v.row["subject"], v.row["predicate"]) for v in versions},
            )
            linked, linked_more = None, False
            if num_hops:
                roots = [
                    v
                    for c in claims
                    for v in ([c.current] if c.current else [])
                    + (c.history[: self.caps.history_rows] if history else [])
                ]
                found = link_traversal.traverse(
                    s, [("entity_memory", v.id) for v in roots], now, hops=num_hops, limit=max_linked_results
                )
                linked, linked_more = link_traversal.bounded(found, max_linked_results)
        return render_claims(
            claims,
            subject=subject,
            predicate=predicate,
            include_history=history,
            more=more or linked_more,
            history_rows=self.caps.history_rows,
            cell_chars=self.caps.cell_chars,
            max_tokens=self._result_tokens(identity),
            annotations=notes,
            linked=linked,
            as_of=now if as_of is not None else None,
        )

    def correct_entity(
        self,
        identity: Identity,
        subject: str,
        predicate: str,
        content: str,
        *,
        content_json: Any = None,
        confidence: float | None = None,
        expected_version: int | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        thread_id: str | None = None,
    ) -> Row:
        """Record a claim, or its next version if one exists (never an in-place edit)."""
        require_text(content, "content")
        if content_json is not None and not isinstance(content_json, dict):
            raise InvalidArgument(
                f"conditions must be a JSON object, got {type(content_json).__name__}: {content_json!r:.80}",
                field="content_json",
            )
        with self.backend.session(identity) as s:
            return entities.correct(
                s,
                identity,
                subject=subject,
                predicate=predicate,
                content=content,
                now=now_iso(),
                content_json=content_json,
                confidence=confidence,
                expected_version=expected_version,
                user_id=user_id,
                agent_id=agent_id,
                thread_id=thread_id,
                on_replaced=promotion.on_replaced,
            )
