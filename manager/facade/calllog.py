"""Entry points for the MCP call log."""

from __future__ import annotations

from ..backend.base import Row
from ..identity import Identity
from ..registry import calllog
from ..registry.calllog import CallRecord
from .core import ManagerCore


class CallLogMethods(ManagerCore):
    def log_call(self, identity: Identity, record: CallRecord) -> None:
        """Write the call's mcp_call_log row in its own session, after the call's own work."""
        with self.backend.session(identity) as s:
            calllog.write(s, identity, record, self.caps.result_log_chars)

    def recent_calls(
        self, identity: Identity, *, tool: str | None = None, status: str | None = None, limit: int = 20
    ) -> list[Row]:
        with self.backend.session(identity) as s:
            rows, _ = s.fetch_page("calllog_recent", limit, tool=tool, status=status)
            return rows
