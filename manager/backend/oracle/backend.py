"""OracleBackend: the Backend/Session contract on Oracle AI Database (26ai, 23ai, Autonomous).

The wall is the database's. Tables carry the logical names in MEMGATE_OWNER's schema;
a VPD policy on every one of them (sql/oracle/install/040_vpd.sql) adds the caller's
tenant and scope to every SELECT, INSERT, UPDATE and DELETE, from the application context
MEMGATE_CTX, which only memgate_ctx_pkg can set and only MEMGATE_APP may execute. Guard
triggers (022) refuse a write naming another tenant or scope with the same messages as
SQLite's; update_check refuses anything they missed.

Per session: acquire from the app pool, bound each round trip by call_timeout (the
manager's caps.query_timeout_s), set module "memgate", action (the tool) and
client_identifier (the call id) for V$SESSION and audit, bind the identity with
memgate_ctx_pkg.set_identity; on exit roll back what was not committed, clear the
identity and the attributes, and give the connection back (dropped if that fails, or if a
round trip timed out).
Outside transaction() each write commits, as SQLite's autocommit does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import oracledb

from ...errors import InvalidArgument, NotFound, SchemaMismatch
from ...identity import Identity
from ..base import ChunkFilters, QueryRows, Row, ViewCatalog
from ..retention_store import RetentionStore
from ..settings import DatabaseSettings
from ..sql_files import load_sql
from . import install, retention
from . import statements as q
from .connect import Accounts, password
from .dialect import ORACLE_QUERY_DIALECT
from .errors import DSN_SETTING, codes, is_call_timeout, translate
from .kb import text_expression, unit_rows
from .query import ReadonlyQueries
from .values import binds, column_name, cut_bytes, row_value

__all__ = ["OracleBackend", "OracleSession"]

DIALECT = "oracle"
_MODULE = "memgate"
#: statements whose text columns hold '' as NULL (Oracle stores an empty string as NULL)
_EMPTY_WHEN_NULL = {
    "memory_file_get": ("content",),
    "operator_tenant_mapping_list": ("issuer",),
    "operator_tenant_mapping_match": ("issuer",),
    "operator_tenant_mapping_delete": ("issuer",),
}
_NO_TABLE = 942


class OracleSession:
    """Named statements over one connection, for one identity (app account) or the operator (owner)."""

    def __init__(self, conn: oracledb.Connection):
        self._conn = conn
        self._in_transaction = False
        #: True once a round trip ran past call_timeout: the connection goes back to no pool
        self.timed_out = False
        #: True while as_of() has Flashback on: a connection left so is dropped, never pooled
        self.in_flashback = False

    # -- named statements -------------------------------------------------------------
    def fetch_all(self, statement: str, **params: Any) -> list[Row]:
        return self._fetch(statement, params, None)

    def fetch_one(self, statement: str, **params: Any) -> Row | None:
        rows = self._fetch(statement, params, 1)
        return rows[0] if rows else None

    def _fetch(self, statement: str, params: Mapping[str, Any], most: int | None) -> list[Row]:
        with self._cursor(load_sql(DIALECT, statement), params) as cur:
            if cur.description is not None:
                raw = cur.fetchall() if most is None else cur.fetchmany(most)
                return self._rows(cur, raw, statement)
            # A PL/SQL block that returns its rows as an implicit result: Oracle's stand-in for
            # DELETE ... RETURNING rows, or a read that locks first (context_window_rounds).
            # Read them, then commit like a write (which also ends the block's locks).
            results = cur.getimplicitresults()
            rows = self._rows(results[0], results[0].fetchall(), statement) if results else []
        self._commit_unless_in_transaction()
        return rows if most is None else rows[:most]

    def fetch_page(self, statement: str, limit: int, **params: Any) -> tuple[list[Row], bool]:
        with self._cursor(load_sql(DIALECT, statement), params, rows=limit + 1) as cur:
            rows = cur.fetchmany(limit + 1)
            return self._rows(cur, rows[:limit], statement), len(rows) > limit

    def execute(self, statement: str, **params: Any) -> None:
        with self._cursor(load_sql(DIALECT, statement), params):
            pass
        self._commit_unless_in_transaction()

    def insert(self, table: str, row: Row) -> None:
        if not table.isidentifier() or not all(c.isidentifier() for c in row):
            raise InvalidArgument(f"not a logical table and columns: {table!r}", field="table")
        names = list(row)
        sql = q.INSERT_ROW.text.format(
            table=table, columns=", ".join(names), binds=", ".join(f":c{i}" for i in range(len(names)))
        )
        with self._cursor(sql, {f"c{i}": row[c] for i, c in enumerate(names)}):
            pass
        self._commit_unless_in_transaction()

    def insert_many(self, table: str, rows: Sequence[Row]) -> None:
        # One statement a row: the ingest path wraps them in one transaction, so they commit together.
        for row in rows:
            self.insert(table, row)

    def raw(self, sql: str, params: Mapping[str, Any] | tuple = ()) -> list[Row]:
        """Literal Oracle SQL under this session's wall. For tests and operator checks only."""
        with self._cursor(sql, params) as cur:
            rows = self._rows(cur, cur.fetchall(), None) if cur.description else []
        if not rows:
            self._commit_unless_in_transaction()
        return rows

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if self._in_transaction:
            raise InvalidArgument("a transaction is already open on this session")
        self._in_transaction = True
        try:
            yield
        except BaseException:
            self._conn.rollback()
            raise
        else:
            try:
                self._conn.commit()
            except oracledb.Error as exc:
                raise translate(exc) from exc
        finally:
            self._in_transaction = False

    # -- retrieval legs -------------------------------------------------------------------
    def kb_lexical(self, query: str, limit: int, filters: ChunkFilters) -> list[tuple[int, float]]:
        expr = text_expression(query)
        if expr is None:
            return []
        rows = self.fetch_all(
            "kb_lexical",
            expr=expr,
            limit=limit,
            collection=filters.collection,
            document=filters.document_id,
            now=filters.now,
            ended=1 if filters.include_ended else 0,
        )
        return [(int(r["seq"]), float(r["score"])) for r in rows]

    def kb_vector(self, vector: np.ndarray, model: str, limit: int, filters: ChunkFilters) -> list[tuple[int, float]]:
        query = np.asarray(vector, dtype=np.float32)
        if not query.any():
            return []
        rows = self.fetch_all(
            "kb_vector_candidates",
            vector=query,
            dims=int(query.shape[0]),
            model=model,
            limit=limit,
            collection=filters.collection,
            document=filters.document_id,
            now=filters.now,
            ended=1 if filters.include_ended else 0,
        )
        return [(int(r["seq"]), float(r["cosine"])) for r in rows]

    # -- the change marker a context manifest records -------------------------------------
    def change_marker(self) -> dict[str, Any]:
        """The database's current SCN: an operator can read the owner's tables AS OF SCN it."""
        with self._cursor(q.CHANGE_MARKER.text, {}) as cur:
            return {"kind": "oracle_scn", "scn": int(cur.fetchone()[0])}

    @contextmanager
    def as_of(self, marker: Mapping[str, Any]) -> Iterator[None]:
        """Every read inside sees the database as of the marker's SCN (VPD still applies; no writes).

        An SCN older than the undo the database keeps (ORA-08180, ORA-01555) raises NotFound
        naming undo retention (errors.py), from the enable or from a read inside.
        """
        scn = marker.get("scn") if marker.get("kind") == "oracle_scn" else None
        if not isinstance(scn, int) or isinstance(scn, bool) or scn <= 0:
            raise NotFound(
                f"the change marker {dict(marker)!r} names no Oracle SCN to read as of",
                hint="Replay without --as-of-marker: this manifest was recorded on another backend.",
            )
        if self._in_transaction:
            raise InvalidArgument("cannot read as of an SCN inside a transaction")
        self._conn.rollback()  # ORA-08183: Flashback cannot start inside an uncommitted transaction
        with self._cursor(q.ENABLE_AS_OF.text, {"scn": scn}):
            pass
        self.in_flashback = True
        try:
            yield
        finally:
            with self._cursor(q.DISABLE_AS_OF.text, {}):
                pass
            self.in_flashback = False

    # -- plumbing ---------------------------------------------------------------------------
    @contextmanager
    def _cursor(self, sql: str, params: Any, rows: int | None = None) -> Iterator[oracledb.Cursor]:
        cur = self._conn.cursor()
        try:
            if rows is not None:
                cur.arraysize = cur.prefetchrows = rows
            try:
                cur.execute(sql, binds(params) if isinstance(params, Mapping) else list(params), fetch_lobs=False)
            except oracledb.Error as exc:
                if is_call_timeout(exc):
                    self.timed_out = True
                elif not self._in_transaction:
                    self._conn.rollback()
                raise translate(exc) from exc
            yield cur
        finally:
            cur.close()

    @staticmethod
    def _rows(cur: oracledb.Cursor, raw: list[tuple], statement: str | None) -> list[Row]:
        names = [column_name(d.name) for d in cur.description]
        rows = [{n: row_value(v) for n, v in zip(names, r)} for r in raw]
        for column in _EMPTY_WHEN_NULL.get(statement or "", ()):
            for r in rows:
                if r.get(column) is None:
                    r[column] = ""
        return rows

    def _commit_unless_in_transaction(self) -> None:
        if not self._in_transaction:
            try:
                self._conn.commit()
            except oracledb.Error as exc:
                raise translate(exc) from exc


def set_call_attributes(conn: oracledb.Connection, identity: Identity) -> None:
    """module "memgate", action = the tool, client identifier = the call id: V$SESSION and audit show the call.

    Oracle keeps 48 bytes of a module and 32 of an action ("Names longer than 48 bytes are
    truncated", PL/SQL Packages, DBMS_APPLICATION_INFO.SET_MODULE) and 64 of a client
    identifier (DBMS_SESSION), so longer values are cut here.
    """
    conn.module = _MODULE
    conn.action = cut_bytes(identity.tool or "session", 32)
    conn.client_identifier = cut_bytes(identity.call_id or identity.principal or identity.tenant, 64)


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

    def __init__(self, settings: DatabaseSettings, *, create: bool = True):
        # `create` is the SQLite file's; an Oracle schema is installed only by `memgate init`
        # (migrate), which needs the owner's credentials.
        self.settings = settings
        self._accounts = Accounts(settings)
        self._queries = ReadonlyQueries(self._accounts)
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
            conn.module, conn.action = _MODULE, "operator"
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

    def physical_table(self, table: str) -> str:
        return table  # tables carry the logical names; VPD is the wall

    def tables(self) -> list[str]:
        with self._app_cursor() as cur:
            cur.execute(q.WALLED_TABLES.text)
            return [name for (name,) in cur]

    # -- schema -------------------------------------------------------------------------------
    def migrate(self) -> tuple[int, int]:
        want = install.SCHEMA_VERSION
        if self.settings.admin_user:
            self._run_dba_files()
        owner = self._accounts.connect("owner")
        try:
            before = _recorded_version(owner)
            if before > want:
                self._raise_newer(before)
            if before == want:
                return before, want
            with owner.cursor() as cur:
                for name in install.owner_files():
                    install.run_file(name, {}, lambda sql, name=name: _run_ddl(cur, sql, name))
            owner.commit()
        finally:
            owner.close()
        return before, want

    def _run_dba_files(self) -> None:
        values = {
            "memgate_owner_password": password("owner"),
            "memgate_app_password": password("app"),
            "memgate_query_password": password("query"),
            "memgate_tablespace": self.settings.tablespace,
        }
        admin = self._accounts.connect("admin")
        try:
            with admin.cursor() as cur:
                for name in install.DBA_FILES:
                    install.run_file(name, values, lambda sql, name=name: _run_ddl(cur, sql, name))
        finally:
            admin.close()

    def check_schema(self) -> None:
        have, want = self.schema_version(), install.SCHEMA_VERSION
        if have == want:
            return
        if have == 0:
            raise SchemaMismatch(
                f"Oracle {self.settings.dsn} has no memgate schema (no schema version).",
                hint="Run `memgate init` with MEMGATE_ORACLE_OWNER_PASSWORD set.",
            )
        if have < want:
            raise SchemaMismatch(
                f"Oracle {self.settings.dsn} has schema version {have}; this memgate needs version {want}.",
                hint="Run `memgate init` to upgrade it.",
            )
        self._raise_newer(have)

    def _raise_newer(self, have: int) -> None:
        raise SchemaMismatch(
            f"Oracle {self.settings.dsn} has schema version {have}, newer than this memgate "
            f"knows ({install.SCHEMA_VERSION}).",
            hint=f"Upgrade memgate, or point {DSN_SETTING} at another database.",
        )

    def schema_version(self) -> int:
        conn = self._accounts.connect("app")
        try:
            return _recorded_version(conn)
        finally:
            conn.close()

    def known_schema_version(self) -> int:
        return install.SCHEMA_VERSION

    def describe(self) -> dict[str, Any]:
        conn = self._accounts.connect("app")
        try:
            version, schema = conn.version, _recorded_version(conn)
        finally:
            conn.close()
        mode = self._accounts.mode
        return {
            "backend": DIALECT,
            "dsn": self.settings.dsn,
            "mode": mode,
            "oracle_version": version,
            "schema_version": schema,
            "known_schema_version": install.SCHEMA_VERSION,
            "summary": f"Oracle {version}, python-oracledb {oracledb.__version__} {mode} mode, "
            f"pool {self.settings.pool_min}-{self.settings.pool_max}",
        }

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


def _recorded_version(conn: oracledb.Connection) -> int:
    """memgate_schema's highest version; 0 when there is no such table (never installed)."""
    try:
        with conn.cursor() as cur:
            cur.execute(q.SCHEMA_VERSION.text)
            (version,) = cur.fetchone()
    except oracledb.Error as exc:
        if codes(exc)[0] == _NO_TABLE:
            return 0
        raise translate(exc) from exc
    return int(version or 0)


def _run_ddl(cur: oracledb.Cursor, sql: str, file: str) -> None:
    first = next(line for line in sql.splitlines() if line.strip() and not line.lstrip().startswith("--"))
    hint = "Fix the cause and run `memgate init` again: every install file is re-runnable."
    try:
        cur.execute(sql)
    except oracledb.Error as exc:
        raise SchemaMismatch(
            f"sql/oracle/install/{file}.sql failed at `{first.strip()[:80]}` ({codes(exc)[1]})", hint=hint
        ) from exc
    # A package or trigger that does not compile is still created, with a warning only
    # (python-oracledb's Cursor.warning, DPY-7000): an install must not pass over it.
    if cur.warning is not None:
        raise SchemaMismatch(
            f"sql/oracle/install/{file}.sql: `{first.strip()[:80]}` was created with "
            f"compilation errors ({cur.warning.full_code}); see USER_ERRORS",
            hint=hint,
        )
