"""The export's own checks: a scope it can name, the tables that never move, the wall's rule for the
shared listing, and the stop when a row comes back outside the scope it was read in."""

from __future__ import annotations

import pytest
from portability_helpers import TENANT, bundle_rows, seed_shop

from memgate.manager import InvalidArgument, export_scope
from memgate.manager.errors import AccessDenied
from memgate.manager.portability.export import _check_wall
from memgate.manager.portability.scopes import visible_from
from memgate.manager.retention.registry import REGISTRY


@pytest.mark.parametrize(
    "kind, subject, message",
    [
        ("galaxy", "jane", r"^scope must be one of .*got 'galaxy'$"),
        ("user", None, "^name the user to export$"),
        ("thread", "", "^name the thread to export$"),
    ],
)
def test_an_export_names_a_scope_it_can_read(manager, tmp_path, kind, subject, message):
    seed_shop(manager)
    with pytest.raises(InvalidArgument, match=message):
        export_scope(manager.backend, TENANT, kind, subject, tmp_path / "out", requested_by="test")
    assert not (tmp_path / "out").exists()


def test_a_table_marked_not_exported_never_moves_and_the_bundle_says_why(manager, tmp_path):
    seed_shop(manager)
    left_out = {s.table: s.not_exported for s in REGISTRY if s.not_exported}
    assert "merge_candidate" in left_out
    report = export_scope(manager.backend, TENANT, "tenant", None, tmp_path / "all", requested_by="test")
    assert not set(left_out) & set(report.counts) and not set(left_out) & set(bundle_rows(tmp_path / "all"))
    assert report.left_out == left_out


@pytest.mark.parametrize(
    "row, owned, shown",
    [
        ((None, None, None), [("jane", "helper", "t1")], True),  # tenant-wide
        (("jane", None, None), [("jane", "helper", "t1")], True),  # her rows of no agent
        (("bob", None, None), [("jane", "helper", "t1")], False),  # another user's
        ((None, "other", None), [("jane", "helper", "t1")], False),  # another agent's
        (("jane", "helper", "t2"), [("jane", "helper", "t1")], False),  # another thread's
        (("jane", "helper", "t2"), [("jane", "helper", "t1"), ("jane", "helper", "t2")], True),
    ],
)
def test_the_shared_listing_follows_the_walls_rule(row, owned, shown):
    assert visible_from(row, owned) is shown


def test_a_row_read_back_outside_its_scope_stops_the_export():
    spec = next(s for s in REGISTRY if s.table == "entity_memory")
    mine = {"id": "e1", "tenant_id": TENANT, "user_id": "jane", "agent_id": None, "thread_id": None}
    _check_wall(spec, mine, TENANT, ("jane", None, None))
    for wrong, triple in (({**mine, "tenant_id": "elsewhere"}, ("jane", None, None)), (mine, ("bob", None, None))):
        with pytest.raises(AccessDenied, match="came back outside the scope it was read in"):
            _check_wall(spec, wrong, TENANT, triple)
