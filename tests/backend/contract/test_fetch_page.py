"""Session.fetch_page: at most `limit` rows, and whether more exist, on every backend."""

from __future__ import annotations

import pytest

from memgate.manager import CallRecord, OperatorManager

SUBJECT = "model:paged"


@pytest.fixture
def three_versions(manager, two_tenants):
    acme, _ = two_tenants
    for value in ("a", "b", "c"):
        manager.correct_entity(acme, SUBJECT, "score", value)
    return acme


@pytest.mark.parametrize("limit, shown, more", [(1, 1, True), (2, 2, True), (3, 3, False), (4, 3, False)])
def test_fetch_page_returns_at_most_limit_rows_and_says_when_more_exist(backend, three_versions, limit, shown, more):
    acme = three_versions
    with backend.session(acme) as s:
        rows, more_exist = s.fetch_page(
            "entity_versions",
            limit,
            subject=SUBJECT,
            predicate="score",
            user=acme.user,
            agent=acme.agent,
            thread=acme.thread,
        )
    assert (len(rows), more_exist) == (shown, more)
    assert [r["version"] for r in rows] == [3, 2, 1][:shown]


def test_lookup_says_more_exist_only_when_rows_were_cut(manager, three_versions):
    for cap, more in ((2, True), (3, False)):
        manager.caps = manager.caps.model_copy(update={"max_rows": cap, "default_rows": 1})
        claims, more_exist = manager.lookup_claims(three_versions, SUBJECT, "score")
        assert (sum(1 + len(c.history) for c in claims), more_exist) == (min(cap, 3), more)


def test_log_listings_show_exactly_limit_rows_newest_first(manager, two_tenants):
    acme, _ = two_tenants
    for i in range(4):
        manager.log_call(
            acme,
            CallRecord(
                call_id=f"c{i}", called_at=f"2026-12-01T00:00:0{i}.000Z", tool_name="lookup_entity", status="ok"
            ),
        )
    assert [r["call_id"] for r in manager.recent_calls(acme, limit=3)] == ["c3", "c2", "c1"]
    assert [r["call_id"] for r in OperatorManager(manager.backend).recent_calls(tenant="acme", limit=3)] == [
        "c3",
        "c2",
        "c1",
    ]
