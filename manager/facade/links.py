"""Entry points for typed links between memories the caller can see."""

from __future__ import annotations

from ..backend.base import Row
from ..clock import now_iso
from ..identity import Identity
from ..links import render as link_render
from ..links import store as link_store
from ..output.results import ToolOutput
from .core import ManagerCore, require_text


class LinkMethods(ManagerCore):
    def link_memory(
        self,
        identity: Identity,
        from_id: str,
        link_type: str,
        to_id: str,
        *,
        from_type: str | None = None,
        to_type: str | None = None,
        note: str | None = None,
    ) -> ToolOutput:
        """Handler `link_memory`: link two memories the caller can see (an explicit link)."""
        row, created = self.add_link(
            identity, from_id, link_type, to_id, from_type=from_type, to_type=to_type, note=note
        )
        return link_render.written(row, created)

    def add_link(
        self,
        identity: Identity,
        from_id: str,
        link_type: str,
        to_id: str,
        *,
        from_type: str | None = None,
        to_type: str | None = None,
        provenance: str = "explicit",
        note: str | None = None,
    ) -> tuple[Row, bool]:
        """Link two memories, both read through the caller's wall first; (link, False) when it was there."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return link_store.add_link(
                s,
                identity,
                from_id,
                link_type,
                to_id,
                now=now,
                from_type=from_type,
                to_type=to_type,
                provenance=provenance,
                note=note,
            )

    def remove_link(self, identity: Identity, link_id: str) -> Row:
        """Remove a live link the caller can see (the row stays, with deleted_at)."""
        require_text(link_id, "link_id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return link_store.remove_link(s, link_id, now)

    def find_link(self, identity: Identity, from_id: str, link_type: str, to_id: str) -> Row:
        """The live link of `link_type` from one memory to another, as the caller sees them."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return link_store.find_link(s, identity, from_id, link_type, to_id, now)

    def memory_links(
        self, identity: Identity, memory_id: str, *, memory_type: str | None = None
    ) -> list[link_store.LinkView]:
        """The live links of one memory whose far end the caller can see, oldest first."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return link_store.links_of(s, memory_id, memory_type, now)
