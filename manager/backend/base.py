"""The seam between the manager and a database dialect.

Manager code calls these methods only; each backend loads its statements from
sql/<dialect>/<name>.sql, so the manager holds no dialect SQL and no dialect `if`.
Statements use named parameters (`:tenant`), which sqlite3 and python-oracledb
both accept.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, NamedTuple, Protocol

from ..identity import Identity

Row = dict[str, Any]
#: execute_query's reviewed views: view name -> ((column, declared type or None), ...)
ViewCatalog = dict[str, tuple[tuple[str, str | None], ...]]


class QueryRows(NamedTuple):
    """A read-only query's result: at most max_rows rows, and whether more exist."""

    columns: list[str]
    #: per column, the declared type behind it (e.g. CLOB, VECTOR), None for expressions
    declared_types: list[str | None]
    rows: list[tuple]
    truncated: bool


class Session(Protocol):
    """A connection checked out under one caller's trusted context."""

    def fetch_all(self, statement: str, **params: Any) -> list[Row]:
        """Run the named statement and return every row."""

    def fetch_one(self, statement: str, **params: Any) -> Row | None:
        """Run the named statement and return its first row, or None."""

    def fetch_page(self, statement: str, limit: int, **params: Any) -> tuple[list[Row], bool]:
        """Fetch at most `limit` rows, and whether more exist (reads limit + 1)."""

    def execute(self, statement: str, **params: Any) -> None:
        """Run a named write statement."""

    def insert(self, table: str, row: Row) -> None:
        """Insert one row into a logical (tenant-walled) table."""

    def transaction(self) -> AbstractContextManager[None]:
        """An atomic unit: everything inside commits together or not at all."""


class Backend(Protocol):
    dialect: str

    def session(self, identity: Identity) -> AbstractContextManager[Session]:
        """Check out a connection, bind the identity's tenant context, clear it on exit."""

    def operator_session(self) -> AbstractContextManager[Session]:
        """A session for operator-only statements that span tenants (e.g. `memgate log`)."""

    def migrate(self) -> tuple[int, int]:
        """Create or upgrade the schema; returns (version before, version after)."""

    def check_schema(self) -> None:
        """Raise SchemaMismatch unless the schema is the one this memgate knows."""

    def describe(self) -> dict[str, Any]:
        """What `memgate doctor` shows about the database (never secrets)."""

    def run_readonly_query(self, identity: Identity, sql: str, max_rows: int, timeout_s: float) -> QueryRows:
        """Run one admitted SELECT on the read-only, walled query connection (execute_query).

        The wall is the database's: SQLite's read-only connection and authorizer, Oracle's
        read-only account with READ on the reviewed views under VPD. Raises QueryRejected,
        QueryTimeout or BackendUnavailable, never a driver error.
        """

    def query_catalog(self) -> ViewCatalog:
        """The reviewed views execute_query may read, with their columns and declared types."""

    def close(self) -> None:
        """Close every pooled connection."""
