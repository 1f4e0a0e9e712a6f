"""Binds the trusted tenant context to a SQLite connection.

The walled views and the write-guard triggers call app_tenant(), app_user(),
app_agent() and app_thread(); execute_query's reviewed views also call app_now(), the
call's one evaluation time. They are Python functions registered on each connection
and read a mutable holder, so the manager can set the context on checkout and clear it
before the connection is returned. A connection with no context sees nothing:
app_tenant() is NULL and `tenant_id = NULL` is never true.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from ...identity import Identity


@dataclass
class ConnectionContext:
    tenant: str | None = None
    user: str | None = None
    agent: str | None = None
    thread: str | None = None
    #: the call's evaluation time (manager/clock.py), for the views that show current rows
    now: str | None = None

    def bind(self, identity: Identity, now: str | None = None) -> None:
        """Bind the caller: the tenant and its scope (user, agent, thread), and the call's time."""
        self.tenant, self.user, self.agent, self.thread = (
            identity.tenant,
            identity.user,
            identity.agent,
            identity.thread,
        )
        self.now = now

    def clear(self) -> None:
        self.tenant = self.user = self.agent = self.thread = self.now = None


CONTEXT_FUNCTIONS = ("app_tenant", "app_user", "app_agent", "app_thread", "app_now")


def install_context_functions(conn: sqlite3.Connection, holder: ConnectionContext) -> None:
    """Register app_tenant() & co. on `conn`, reading from `holder` at call time."""
    conn.create_function("app_tenant", 0, lambda: holder.tenant)
    conn.create_function("app_user", 0, lambda: holder.user)
    conn.create_function("app_agent", 0, lambda: holder.agent)
    conn.create_function("app_thread", 0, lambda: holder.thread)
    conn.create_function("app_now", 0, lambda: holder.now)
