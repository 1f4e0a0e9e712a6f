"""Helpers for tests that drive the real memgate FastMCP server."""

from __future__ import annotations

from backend_helpers import operator_rows

from memgate.server.app import stdio_server
from memgate.server.cli.common import open_manager
from memgate.server.settings import load_settings


def stdio_app(sqlite_path, tenant="acme", user="jane", agent="research-assistant", thread=None, **overrides):
    """The server `memgate serve --tenant ...` would run, for an in-process fastmcp.Client.

    `overrides` are more dotted settings, e.g. `**{"caps.query_timeout_s": 1}`.
    """
    settings = load_settings(
        None,
        **{
            "database.path": str(sqlite_path),
            "stdio.tenant": tenant,
            "stdio.user": user,
            "stdio.agent": agent,
            "stdio.thread": thread,
            **overrides,
        },
    )
    manager = open_manager(settings)
    return stdio_server(manager, settings), manager


def log_rows(backend, **where):
    """Every mcp_call_log row in the database (all tenants), oldest first, read as the operator."""
    clause = " AND ".join(f"{k} = :{k}" for k in where) or "1 = 1"
    return operator_rows(backend, "mcp_call_log", f"WHERE {clause} ORDER BY called_at, call_id", where)
