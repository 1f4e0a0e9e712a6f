"""A small pool of SQLite connections, each carrying its own bound tenant context.

Used by the walled manager connections (backend.py) and the read-only query
connections (query.py). A connection is given back with its context
cleared and any open transaction rolled back, so nothing of one caller is left
for the next.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import Any

from .context import ConnectionContext, install_context_functions


class WalledConnection:
    """One pooled connection: its context holder, and the wall built for its schema version."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.context = ConnectionContext()
        self.schema_version: int | None = None
        self.authorizer: Callable[..., int] | None = None
        self.catalog: dict[str, Any] = {}  # the query connections' view catalog
        #: tenant -> lexical-index slot, read with the wall; the slot the TEMP view kb_chunk_match points at
        self.lexical_slots: dict[str, int] = {}
        self.match_slot: int | None = None
        install_context_functions(conn, self.context)

    def refresh_wall(self, build: Callable[["WalledConnection"], None]) -> None:
        """Rebuild the wall with `build(self)` if the schema changed since it was built, then install it.

        The authorizer is lifted while this reads the schema (it refuses PRAGMA).
        """
        self.conn.set_authorizer(None)
        version = self.conn.execute("PRAGMA schema_version").fetchone()[0]
        if version != self.schema_version:
            build(self)
            self.schema_version = version
        self.conn.set_authorizer(self.authorizer)


class ConnectionPool:
    def __init__(self, connect: Callable[[], sqlite3.Connection], *, idle_max: int):
        self._connect = connect
        self._idle_max = idle_max
        self.idle: list[WalledConnection] = []
        self._lock = threading.Lock()

    def take(self) -> WalledConnection:
        with self._lock:
            if self.idle:
                return self.idle.pop()
        return WalledConnection(self._connect())

    def give(self, pooled: WalledConnection) -> None:
        if pooled.conn.in_transaction:
            pooled.conn.execute("ROLLBACK")
        pooled.context.clear()
        with self._lock:
            if len(self.idle) < self._idle_max:
                self.idle.append(pooled)
                return
        pooled.conn.close()

    def close(self) -> None:
        with self._lock:
            idle, self.idle = self.idle, []
        for pooled in idle:
            pooled.conn.close()
