"""mcp_call_cited, the ids each ok call cited: written with its call-log row, walled like it, and gone
when `memgate expire` takes the call (by SQLite's trigger, and by the registry's orphan rule that a
backend without the trigger relies on)."""

from __future__ import annotations

import pytest
from backend_helpers import operator_rows

from memgate.manager import AccessDenied, Conflict, Identity, expire, set_retention
from memgate.manager.clock import days_ago_iso, now_iso
from memgate.manager.registry.calllog import CallRecord

TENANT = "shop"
JANE = Identity(tenant=TENANT, user="jane", agent="helper", thread="t1", principal="test:jane")
BOB = Identity(tenant=TENANT, user="bob", agent="helper", thread="t1", principal="test:bob")


def log(manager, who: Identity, call_id: str, status: str, *cited: str, at: str | None = None) -> None:
    manager.log_call(
        who,
        CallRecord(
            call_id=call_id, called_at=at or now_iso(), tool_name="search_memory", status=status, cited_ids=cited
        ),
    )


def cited(manager) -> list[tuple]:
    return sorted(
        (r["call_id"], r["cited_id"], r["user_id"], r["agent_id"], r["thread_id"])
        for r in operator_rows(manager.backend, "mcp_call_cited")
    )


def test_an_ok_call_writes_each_cited_id_in_its_scope_and_another_status_none(manager):
    log(manager, JANE, "call_ok", "ok", "kbc_a", "ent_b")
    log(manager, JANE, "call_denied", "denied", "kbc_c")
    log(manager, JANE, "call_none", "ok")
    assert cited(manager) == [
        ("call_ok", "ent_b", "jane", "helper", "t1"),
        ("call_ok", "kbc_a", "jane", "helper", "t1"),
    ]
    with manager.backend.session(JANE) as s:
        assert s.fetch_one("calllog_cited", id="kbc_a") == {"call_id": "call_ok"}
        assert s.fetch_one("calllog_cited", id="kbc_c") is None
    # the wall cuts the rows as it cuts the call log: bob was issued nothing
    with manager.backend.session(BOB) as s:
        assert s.fetch_one("calllog_cited", id="kbc_a") is None


def test_the_call_and_its_cited_ids_commit_together(manager):
    """A cited row that cannot be written (its key is taken) leaves no call-log row either."""
    with manager.backend.session(JANE) as s:
        s.insert(
            "mcp_call_cited",
            {
                "id": "call_x:1",
                "tenant_id": TENANT,
                "user_id": "jane",
                "agent_id": "helper",
                "thread_id": "t1",
                "call_id": "call_other",
                "cited_id": "kbc_z",
            },
        )
    with pytest.raises(Conflict, match="nothing was written"):
        log(manager, JANE, "call_x", "ok", "kbc_a", "kbc_b")
    assert operator_rows(manager.backend, "mcp_call_log", "WHERE call_id = 'call_x'") == []
    assert [r["id"] for r in operator_rows(manager.backend, "mcp_call_cited")] == ["call_x:1"]


def test_cited_rows_are_append_only(manager):
    log(manager, JANE, "call_ok", "ok", "kbc_a")
    with manager.backend.session(JANE) as s, pytest.raises(AccessDenied, match="cannot be changed in place"):
        s.raw("UPDATE mcp_call_cited SET cited_id = 'kbc_other'")
    assert cited(manager) == [("call_ok", "kbc_a", "jane", "helper", "t1")]


def test_expiring_the_call_log_takes_its_cited_ids_and_any_orphan(manager):
    old = days_ago_iso(40)
    log(manager, JANE, "call_old", "ok", "kbc_a", "ent_b", at=old)
    log(manager, JANE, "call_new", "ok", "kbc_a")
    # a cited row whose call is not in the log (what a backend without the delete trigger leaves)
    with manager.backend.session(JANE) as s:
        s.insert(
            "mcp_call_cited",
            {
                "id": "call_gone:0",
                "tenant_id": TENANT,
                "user_id": "jane",
                "agent_id": "helper",
                "thread_id": "t1",
                "call_id": "call_gone",
                "cited_id": "kbc_q",
            },
        )
    set_retention(manager.backend, TENANT, {"mcp_call_log": 30}, "test")
    report = expire(manager.backend, TENANT)
    assert report.counts == {"mcp_call_log": 1, "mcp_call_cited (mcp_call_log)": 1}
    assert cited(manager) == [("call_new", "kbc_a", "jane", "helper", "t1")]
