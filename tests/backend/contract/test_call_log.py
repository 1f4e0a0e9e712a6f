"""The call log on every backend: one row per call with who called, the caller's own calls newest
first, and dbtools_mcp_log in the shape of SQLcl's DBTOOLS$MCP_LOG, across tenants for the operator."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memgate.manager import ACME, GLOBEX, OperatorManager
from memgate.manager.registry.calllog import CallRecord

HOST = replace(ACME, client_name="claude-ai", client_version="0.1.0", model="claude-sonnet-4")
SQLCL_COLUMNS = [
    "id",
    "mcp_client",
    "model",
    "end_point_type",
    "end_point_name",
    "log_message",
    "created_on",
    "created_by",
]


def _log(manager, who, call_id, at, tool="lookup_entity", status="ok", **args):
    manager.log_call(
        who,
        CallRecord(call_id=call_id, called_at=at, tool_name=tool, status=status, arguments=args or {"subject": "x"}),
    )


def test_the_caller_reads_its_own_calls_newest_first_with_filters(manager):
    _log(manager, HOST, "c1", "2026-09-01T00:00:01.000Z")
    _log(manager, HOST, "c2", "2026-09-01T00:00:02.000Z", status="denied")
    _log(manager, GLOBEX, "g1", "2026-09-01T00:00:03.000Z")
    assert [r["call_id"] for r in manager.recent_calls(ACME)] == ["c2", "c1"]
    assert [r["call_id"] for r in manager.recent_calls(ACME, status="denied")] == ["c2"]
    assert [r["call_id"] for r in OperatorManager(manager.backend).recent_calls()] == ["g1", "c2", "c1"]
    assert [r["call_id"] for r in OperatorManager(manager.backend).recent_calls(tenant="globex")] == ["g1"]


def test_dbtools_mcp_log_has_sqlcls_columns_first_and_the_host_and_model(manager, backend):
    _log(manager, HOST, "c1", "2026-09-01T00:00:01.000Z", tool="search_memory", query="vpd")
    _log(manager, GLOBEX, "g1", "2026-09-01T00:00:03.000Z")
    with backend.operator_session() as s:
        rows = s.raw("SELECT * FROM dbtools_mcp_log ORDER BY created_on")
    assert list(rows[0])[:8] == SQLCL_COLUMNS
    first = {k: rows[0][k] for k in SQLCL_COLUMNS}
    assert first == {
        "id": "c1",
        "mcp_client": "claude-ai 0.1.0",
        "model": "claude-sonnet-4",
        "end_point_type": "tool",
        "end_point_name": "search_memory",
        "log_message": '{"query": "vpd"}',
        "created_on": "2026-09-01T00:00:01.000Z",
        "created_by": ACME.principal,
    }
    assert [r["tenant_id"] for r in rows] == ["acme", "globex"]
    assert rows[1]["mcp_client"] is None and rows[1]["model"] is None


def test_a_walled_session_cannot_read_the_operators_log_view(backend, manager):
    _log(manager, GLOBEX, "g1", "2026-09-01T00:00:03.000Z")
    with backend.session(ACME) as s:
        try:
            rows = s.raw("SELECT id FROM dbtools_mcp_log")
        except Exception as exc:  # refused outright is fine
            assert type(exc).__name__ == "AccessDenied"
        else:
            assert rows == []  # or cut to the caller's rows by the wall


def test_the_log_is_append_only(backend, manager):
    from memgate.manager import AccessDenied

    _log(manager, ACME, "c1", "2026-09-01T00:00:01.000Z")
    with backend.session(ACME) as s, pytest.raises(AccessDenied, match="cannot be changed in place"):
        s.raw("UPDATE mcp_call_log SET status = 'ok' WHERE call_id = 'c1'")
