"""Replay markers: a session reads rows as of a change marker it took earlier, under the same wall.

Not part of the Backend protocol yet (context assembly and its manifest add it): a backend
without `change_marker` on its sessions is skipped with that reason.
"""

from __future__ import annotations

import pytest

from memgate.manager import ACME, GLOBEX, NotFound


def _needs_markers(backend):
    with backend.session(ACME) as s:
        if not hasattr(s, "change_marker"):
            pytest.skip(f"{backend.dialect} sessions have no change_marker yet: replay is not in the protocol")


def test_reads_as_of_a_marker_see_the_rows_of_that_moment_and_only_the_callers(backend, two_tenants):
    _needs_markers(backend)
    with backend.session(ACME) as s:
        marker = s.change_marker()
    with backend.session(ACME) as s:
        s.insert("summarization_memory", {"id": "sum_after", "tenant_id": "acme", "title": "t", "content": "c"})
    with backend.session(ACME) as s:
        with s.as_of(marker):
            assert s.raw("SELECT id FROM summarization_memory WHERE id = 'sum_after'") == []
            assert {r["tenant_id"] for r in s.raw("SELECT tenant_id FROM entity_memory")} == {"acme"}
        assert s.raw("SELECT id FROM summarization_memory WHERE id = 'sum_after'") == [{"id": "sum_after"}]
    with backend.session(GLOBEX) as s, s.as_of(marker):
        assert {r["tenant_id"] for r in s.raw("SELECT tenant_id FROM entity_memory")} == {"globex"}


def test_a_marker_from_before_the_undo_retention_says_so(backend, two_tenants):
    _needs_markers(backend)
    with backend.session(ACME) as s, pytest.raises(NotFound, match="snapshot is no longer available"):
        with s.as_of(1):
            s.raw("SELECT id FROM entity_memory")
