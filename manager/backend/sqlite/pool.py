"""A small pool of SQLite connections, each carrying its own bound tenant context.

Used by the walled manager connections (backend.py) and the read-only query
connections (query.py). A connection is given back with its context
cleared and any open transaction rolled back, so nothing of one caller is left
for the next.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .context import ConnectionContext, install_context_functions

#: each pooled connection's page cache, in KiB (SQLite's default is 2,000). A connection's cache
#: seldom outlives its call: every call writes a call-log row, and in WAL mode a connection drops
#: its whole cache at its next read once another connection has written. Yet each idle
#: connection keeps the memory: 16 walled connections held 42 MB of SQLite heap after one FTS
#: search each at 100k chunks, 18 MB at 512 KiB, which measured no slower there on 200 lexical
#: searches nor on bench.ingest, interleaved (docs/benchmarks.md, "Server memory").
PAGE_CACHE_KIB = 512


class WalledConnection:
    """One pooled connection: its context holder, and the wall built for its schema version.

    The wall stays installed for the connection's life, as one authorizer that hands each
    check to `authorizer`. Installing an authorizer expires every prepared statement of the
    connection, so re-installing it on each checkout made every statement parse, plan and
    run the Python authorizer again on every session; installed once, the connection's
    statement cache keeps them. An authorizer decides on the schema alone (the caller's
    tenant and scope are read at run time by app_tenant() & co.), so a statement prepared
    under the current wall stays right until the schema changes, when SQLite prepares it
    again, and this checks it again.
    """

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.context = ConnectionContext()
        self.schema_version: int | None = None
        self.authorizer: Callable[..., int] | None = None
        self.catalog: dict[str, Any] = {}  # the query connections' view catalog
        #: tenant -> lexical-index slot, read with the wall; the slot the TEMP view kb_chunk_match points at
        self.lexical_slots: dict[str, int] = {}
        self.match_slot: int | None = None
        self._installed = False
        self._reading_version = False
        # A tag no other statement's text can carry: the statement cache is keyed by text, and
        # this prepared statement was authorized for reading the schema version alone.
        self._version_sql = f"PRAGMA schema_version -- {secrets.token_hex(16)}"
        install_context_functions(conn, self.context)

    def refresh_wall(self, build: Callable[[WalledConnection], None]) -> None:
        """Rebuild the wall with `build(self)` if the schema changed since it was built.

        Reading the schema version is the one thing allowed outside the wall (it refuses
        PRAGMA); a rebuild runs with the authorizer lifted, and installing it again expires
        every statement prepared meanwhile, so each is checked by the new wall before it runs.
        """
        self._reading_version = True
        try:
            version = self.conn.execute(self._version_sql).fetchone()[0]
        finally:
            self._reading_version = False
        if version != self.schema_version or not self._installed:
            self.conn.set_authorizer(None)
            self._installed = False
            build(self)
            self.schema_version = version
            self.conn.set_authorizer(self._authorize)
            self._installed = True

    @contextmanager
    def wall_lifted(self) -> Iterator[None]:
        """Run the backend's own statements (DDL it trusts) with the authorizer off. Installing it
        again afterwards expires every statement prepared meanwhile, so each is checked again."""
        self.conn.set_authorizer(None)
        self._installed = False
        try:
            yield
        finally:
            self.conn.set_authorizer(self._authorize)
            self._installed = True

    def _authorize(
        self, action: int, arg1: str | None, arg2: str | None, dbname: str | None, source: str | None
    ) -> int:
        if self._reading_version:
            allowed = action == sqlite3.SQLITE_PRAGMA and arg1 == "schema_version" and arg2 is None
            return sqlite3.SQLITE_OK if allowed else sqlite3.SQLITE_DENY
        if self.authorizer is None:
            return sqlite3.SQLITE_DENY
        return self.authorizer(action, arg1, arg2, dbname, source)


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
