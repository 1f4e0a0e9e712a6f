"""OracleBackend: the Backend/Session contract on Oracle AI Database (26ai, 23ai, Autonomous).

The wall is the database's. Tables carry the logical names in MEMGATE_OWNER's schema;
a VPD policy on every one of them (sql/oracle/install/040_vpd.sql) adds the caller's
tenant and scope to every SELECT, INSERT, UPDATE and DELETE, from the application context
MEMGATE_CTX, which only memgate_ctx_pkg can set and only MEMGATE_APP may execute. Guard
triggers (022) refuse a write naming another tenant or scope with the same messages as
SQLite's; update_check refuses anything they missed.

This module is the runtime: per session, acquire from the app pool, bound each round trip by
call_timeout (the manager's caps.query_timeout_s), set module "memgate", action (the tool) and
client_identifier (the call id) for V$SESSION and audit, bind the identity with
memgate_ctx_pkg.set_identity; on exit roll back what was not committed, clear the
identity and the attributes, and give the connection back (dropped if that fails, or if a
round trip timed out). The session itself is session.py's; install and schema management
(`memgate init`, the schema version, describe, doctor's post-install checks) are schema.py's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np
import oracledb

from ...identity import Identity
from ..base import InstallCheck, QueryRows, ViewCatalog
from ..retention_store import RetentionStore
from ..settings import DatabaseSettings
from . import install, portable, retention
from . import statements as q
from .connect import Accounts
from .dialect import ORACLE_QUERY_DIALECT
from .errors import is_call_timeout, translate
from .kb import unit_rows
from .query import ReadonlyQueries
from .schema import OracleSchema
from .session import DIALECT, MODULE, OracleSession, set_call_attributes

__all__ = ["DatabaseEmbedder", "OracleBackend", "OracleSession"]


class DatabaseEmbedder:
    """Embeddings from an ONNX model loaded in the database: VECTOR_EMBEDDING(model USING text)."""

    def __init__(self, accounts: Accounts, model: str, call_timeout_ms: int = 0):
        self._accounts = accounts
        self._sql = q.EMBED_TEXT.text.format(model=model)
        self._call_timeout_ms = call_timeout_ms
        self.name = f"oracle-onnx-{model.lower()}"

    def embed(self, texts: list[str]) -> np.ndarray:
        conn = self._accounts.acquire("app")
        broken = False
        try:
            conn.call_timeout = self._call_timeout_ms
            with conn.cursor() as cur:
                vectors = []
                for text in texts:
                    cur.execute(self._sql, {"text": text})
                    vectors.append(np.asarray(cur.fetchone()[0], dtype=np.float32))
            conn.call_timeout = 0
        except oracledb.Error as exc:
            broken = is_call_timeout(exc)
            raise translate(exc) from exc
        finally:
            self._accounts.release("app", conn, broken=broken)
        return unit_rows(np.vstack(vectors)) if vectors else np.zeros((0, 0), dtype=np.float32)


class OracleBackend:
    dialect = DIALECT
    query_dialect = ORACLE_QUERY_DIALECT
    portable_sql = portable.SQL

    def __init__(self, settings: DatabaseSettings, *, create: bool = True):
        # `create` is the SQLite file's; an Oracle schema is installed only by `memgate init`
        # (migrate), which needs the owner's credentials.
        self.settings = settings
        self._accounts = Accounts(settings)
        self._queries = ReadonlyQueries(self._accounts)
        self._schema = OracleSchema(settings, self._accounts)
        #: python-oracledb's Connection.call_timeout for walled sessions, in ms; 0 = unbounded
        self._call_timeout_ms = 0

    # -- sessions ---------------------------------------------------------------------------
    @contextmanager
    def session(self, identity: Identity, *, now: str | None = None) -> Iterator[OracleSession]:
        """`now`, when given, is the session's evaluation time: MEMGATE_CTX's NOW (SQLite's app_now())."""
        conn = self._accounts.acquire("app")
        session = OracleSession(conn)
        broken = False
        try:
            conn.call_timeout = self._call_timeout_ms
            set_call_attributes(conn, identity)
            try:
                with conn.cursor() as cur:
                    cur.execute(
                        q.SET_IDENTITY.text,
                        {
                            "tenant": identity.tenant,
                            "user_id": identity.user,
                            "agent_id": identity.agent,
                            "thread_id": identity.thread,
                            "call_id": identity.call_id,
                            "now": now,
                        },
                    )
            except oracledb.Error as exc:
                session.timed_out = is_call_timeout(exc)
                raise translate(exc) from exc
            yield session
        finally:
            # A session that timed out, or is still in Flashback, is dropped: its identity goes with it.
            broken = session.timed_out or session.in_flashback
            if not broken:
                try:
                    conn.rollback()
                    with conn.cursor() as cur:
                        cur.execute(q.CLEAR_IDENTITY.text)
                    conn.module = conn.action = conn.client_identifier = ""
                    conn.call_timeout = 0
                except oracledb.Error:
                    broken = True
            self._accounts.release("app", conn, broken=broken)

    @contextmanager
    def operator_session(self) -> Iterator[OracleSession]:
        """The schema owner, no identity bound: VPD adds no predicate (sql/oracle/operator_*.sql)."""
        conn = self._accounts.acquire("owner")
        broken = False
        try:
            conn.module, conn.action = MODULE, "operator"
            yield OracleSession(conn)
        finally:
            try:
                conn.rollback()
            except oracledb.Error:
                broken = True
            self._accounts.release("owner", conn, broken=broken)

    @contextmanager
    def retention_store(self, tenant: str) -> Iterator[RetentionStore]:
        """One tenant's rows whatever their scope, for retention and erasure: the owner (operator only)."""
        with self.operator_session() as s:
            yield retention.retention_store(s, tenant)

    def merge_lexical_indexes(self, tenant: str, pages: int) -> dict[str, str]:
        """The Oracle Text indexes are every tenant's (FILTER BY tenant_id): optimized whole, FULL, by the owner,
        as after an erasure (docs/oracle.md, Oracle Text index maintenance); `pages` is SQLite's."""
        with self.operator_session() as s:
            s.raw(q.OPTIMIZE_TEXT_INDEX.text)
            s.raw(q.OPTIMIZE_RECALL_TEXT_INDEX.text)
        return {"kb_chunk_text_ix": "optimized (FULL)", "conversation_recall_text_ix": "optimized (FULL)"}

    def physical_table(self, table: str) -> str:
        return table  # tables carry the logical names; VPD is the wall

    def tables(self) -> list[str]:
        with self._app_cursor() as cur:
            cur.execute(q.WALLED_TABLES.text)
            return [name for (name,) in cur]

    # -- schema (schema.py) ---------------------------------------------------------------------
    def migrate(self) -> tuple[int, int]:
        return self._schema.migrate()

    def check_schema(self) -> None:
        self._schema.check_schema()

    def schema_version(self) -> int:
        return self._schema.schema_version()

    def known_schema_version(self) -> int:
        return install.SCHEMA_VERSION

    def describe(self) -> dict[str, Any]:
        return self._schema.describe()

    def install_checks(self) -> list[InstallCheck]:
        return self._schema.install_checks()

    # -- execute_query ----------------------------------------------------------------------
    def run_readonly_query(
        self,
        identity: Identity,
        sql: str,
        max_rows: int,
        timeout_s: float,
        now: str,
        max_chars: int = 500,
        binds: Mapping[str, Any] | None = None,
    ) -> QueryRows:
        return self._queries.run(identity, sql, max_rows, timeout_s, now, max_chars, binds)

    def query_catalog(self) -> ViewCatalog:
        return self._queries.catalog()

    # -- limits and embeddings ----------------------------------------------------------------
    def set_call_timeout(self, seconds: float) -> None:
        """call_timeout for every walled session's round trips (and the in-database embedder's)."""
        self._call_timeout_ms = max(1, int(seconds * 1000))

    def set_query_temp_caps(self, query_mb: int, total_mb: int) -> None:
        """Nothing per query: MEMGATE_QUERY's own temporary tablespace, of total_mb, bounds all its
        sessions together; `memgate init` sizes it (010_accounts.sql, docs/oracle.md)."""
        self._schema.query_temp_mb = total_mb

    def database_embedder(self) -> DatabaseEmbedder | None:
        """The in-database ONNX embedder when database.onnx_model names one, else None."""
        if self.settings.onnx_model:
            return DatabaseEmbedder(self._accounts, self.settings.onnx_model, self._call_timeout_ms)
        return None

    def close(self) -> None:
        self._accounts.close()

    @contextmanager
    def _app_cursor(self) -> Iterator[oracledb.Cursor]:
        conn = self._accounts.acquire("app")
        try:
            with conn.cursor() as cur:
                yield cur
        except oracledb.Error as exc:
            raise translate(exc) from exc
        finally:
            self._accounts.release("app", conn)
