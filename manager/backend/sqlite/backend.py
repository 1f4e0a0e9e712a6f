"""The embedded SQLite backend: a small pool of connections walled per tenant and scope.

Every pooled connection gets the app_tenant() family of functions and an
authorizer that refuses any top-level statement naming a base_ table or doing
DDL (wall.py). Base tables are reachable only through the walled views and their
triggers, so even a deliberately unfiltered SELECT in manager code sees only the
bound tenant's rows in the caller's user, agent and thread scope
(tests/backend/contract/test_tenant_isolation.py and test_scope_wall.py prove it).
"""

from __future__ import annotations

import json
import shlex
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import BackendUnavailable, InvalidArgument, NotFound
from ...identity import Identity
from ..base import ChunkFilters, InstallCheck, QueryRows, RecallFilters, Row, TermStats, ViewCatalog
from ..retention_store import RetentionStore
from ..sql_files import load_sql
from . import kb, lexical, lexical_merge, portable, retention, schema, vector_cache
from .context import ConnectionContext, install_context_functions
from .dialect import SQLITE_QUERY_DIALECT
from .pool import PAGE_CACHE_KIB, ConnectionPool, WalledConnection
from .query import ReadonlyQueries
from .temp_space import MB, TempCaps
from .vector_cache import VectorCache
from .wall import refuse_base_table_names, translate_sqlite_error, walled_authorizer

__all__ = ["SqliteBackend", "SqliteSession"]

DIALECT = "sqlite"
#: walled connections kept open; calls beyond this many at once open and close their own
_POOL_IDLE_MAX = 16
#: operator connections kept open: every HTTP request reads the tenant mapping through one, and
#: opening a connection (WAL pragma included) cost more than the rest of the lookup together
_OPERATOR_IDLE_MAX = 8


class SqliteSession:
    """Named statements over one checked-out connection, for one identity (or the operator)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        walled: bool = True,
        vectors: tuple[VectorCache, tuple[str, str | None, str | None, str | None]] | None = None,
    ):
        self._conn = conn
        self._walled = walled
        # The backend's vector cache and the scope this session is bound to (walled sessions only).
        self._vectors = vectors

    def fetch_all(self, statement: str, **params: Any) -> list[Row]:
        cur = self._run(load_sql(DIALECT, statement), params)
        return [dict(r) for r in cur.fetchall()]

    def fetch_one(self, statement: str, **params: Any) -> Row | None:
        row = self._run(load_sql(DIALECT, statement), params).fetchone()
        return dict(row) if row is not None else None

    def fetch_page(self, statement: str, limit: int, **params: Any) -> tuple[list[Row], bool]:
        cur = self._run(load_sql(DIALECT, statement), params)
        rows = cur.fetchmany(limit + 1)
        return [dict(r) for r in rows[:limit]], len(rows) > limit

    def execute(self, statement: str, **params: Any) -> None:
        self._run(load_sql(DIALECT, statement), params)

    def insert(self, table: str, row: Row) -> None:
        if not table.isidentifier() or table.startswith("base_"):
            raise InvalidArgument(f"not a logical table name: {table!r}", field="table")
        cols = ", ".join(row)
        marks = ", ".join(f":{c}" for c in row)
        self._run(f"INSERT INTO {table} ({cols}) VALUES ({marks})", row)

    def insert_many(self, table: str, rows: Sequence[Row]) -> None:
        if not rows:
            return
        if not table.isidentifier() or table.startswith("base_"):
            raise InvalidArgument(f"not a logical table name: {table!r}", field="table")
        columns = list(rows[0])
        if any(list(r) != columns for r in rows):
            raise InvalidArgument("every row of one insert_many names the same columns", field="rows")
        sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(f':{c}' for c in columns)})"
        if self._walled:
            refuse_base_table_names(sql)
        try:
            self._conn.executemany(sql, (self._bindable(r) for r in rows))
        except sqlite3.Error as exc:
            raise translate_sqlite_error(exc) from exc

    def raw(self, sql: str, params: Mapping[str, Any] | tuple = ()) -> list[Row]:
        """Run literal SQL under this session's wall. For tests and operator checks only."""
        return [dict(r) for r in self._run(sql, params).fetchall()]

    @contextmanager
    def transaction(self) -> Iterator[None]:
        # BEGIN IMMEDIATE takes the write lock up front, so a read-check-write
        # inside (e.g. "is version 1 still current?") cannot race another process.
        self._run("BEGIN IMMEDIATE", ())
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        else:
            self._run("COMMIT", ())

    def change_marker(self) -> dict[str, Any]:
        # SQLite numbers no changes: the manifest's list of the row versions read is the marker.
        return {"kind": "sqlite_versions_read"}

    def as_of(self, marker: Mapping[str, Any]) -> AbstractContextManager[None]:
        raise NotFound(
            "SQLite keeps no change number, so it cannot read the database as of a manifest's "
            "change marker; replay reads the versions the manifest names as they are now",
            hint="Replay without --as-of-marker; reading as of the marker needs the Oracle backend.",
        )

    # -- knowledge-base retrieval legs ----------------------------------------
    def kb_lexical(self, query: str, limit: int, filters: ChunkFilters) -> list[tuple[int, float]]:
        return self._lexical("kb_lexical", query, limit, filters.binds())

    def kb_vector(self, vector: np.ndarray, model: str, limit: int, filters: ChunkFilters) -> list[tuple[int, float]]:
        query = np.asarray(vector, dtype=np.float32)
        if not query.any():
            return []
        if self._vectors is not None:
            return self._cached_vector(query, model, limit, filters, vector_cache.KB)
        return self.kb_vector_exact(query, model, limit, filters)

    # -- conversation recall's legs: the knowledge base's machinery over base_conversation_recall --------
    def recall_lexical(self, query: str, limit: int, filters: RecallFilters) -> list[tuple[int, float]]:
        return self._lexical("recall_lexical", query, limit, filters.policy_binds())

    def _lexical(self, statement: str, query: str, limit: int, binds: dict[str, Any]) -> list[tuple[int, float]]:
        """A BM25 leg (kb_lexical, recall_lexical): the query's FTS5 expression, the best `limit` rows read
        in bm25 order and no further."""
        expr = kb.fts_expression(query)
        if expr is None:
            return []
        cursor = self._run(load_sql(DIALECT, statement), dict(expr=expr, **binds))
        try:
            ranked = kb.best_by_bm25(cursor, limit)
        finally:
            cursor.close()
        # bm25() is smaller for better matches; the protocol's scores are larger for better.
        return [(seq, -bm25) for seq, bm25 in ranked]

    def recall_vector(
        self, vector: np.ndarray, model: str, limit: int, filters: RecallFilters
    ) -> list[tuple[int, float]]:
        query = np.asarray(vector, dtype=np.float32)
        if not query.any():
            return []
        if self._vectors is not None:
            return self._cached_vector(query, model, limit, filters, vector_cache.RECALL)
        rows = self.fetch_all(
            "recall_vector_candidates", model=model, bytes=4 * query.shape[0], **filters.policy_binds()
        )
        return kb.rank_by_cosine(rows, query, limit)

    def _cached_vector(
        self, query: np.ndarray, model: str, limit: int, filters: Any, source: vector_cache.VectorSource
    ) -> list[tuple[int, float]]:
        assert self._vectors is not None
        cache, scope = self._vectors
        return vector_cache.search(
            cache,
            scope,
            lambda name, **p: self.fetch_one(name, **p),
            lambda name, **p: self.fetch_all(name, **p),
            lambda name, **p: self._run(load_sql(DIALECT, name), p),
            query,
            model,
            limit,
            filters,
            source,
        )

    def kb_term_stats(self, words: Sequence[str], *, exclude_document: str | None = None) -> TermStats:
        """The bound tenant's index vocabulary read for `words`: each word goes through the index's own
        tokenizer (kb_query_words), and each of its terms is looked up by key in the index's vocabulary
        (kb_chunk_vocab); a word the tokenizer splits counts as its rarest term. A few key lookups and
        a count of small rows, whatever the index's size. The chunks of `exclude_document` are counted
        with MATCH within that document and taken off."""
        words = list(dict.fromkeys(words))
        row = self.fetch_one("kb_index_chunks")
        chunks = int(row["chunks"]) if row else 0
        found: dict[int, int] = {}
        if words:
            self.execute("kb_query_words_clear")
            self.execute("kb_query_words_fill", words=json.dumps(words))
            for r in self.fetch_all("kb_term_vocab"):
                position, n = int(r["position"]), int(r["chunks"] or 0)
                found[position] = min(found.get(position, n), n)
        holding = {w: found.get(i, 0) for i, w in enumerate(words)}
        if exclude_document is not None:
            own = self.fetch_one("kb_chunk_count", document=exclude_document)
            chunks -= int(own["chunks"]) if own else 0
            for w, n in holding.items():
                if n:
                    inside = self.fetch_one("kb_term_chunks", expr=kb.fts_string(w), document=exclude_document)
                    holding[w] = max(0, n - (int(inside["chunks"]) if inside else 0))
        return TermStats(chunks=max(0, chunks), holding=holding)

    def kb_vector_exact(
        self, vector: np.ndarray, model: str, limit: int, filters: ChunkFilters
    ) -> list[tuple[int, float]]:
        """The vector leg without the cache: every visible blob read and scored (the cache's reference)."""
        query = np.asarray(vector, dtype=np.float32)
        if not query.any():
            return []
        rows = self.fetch_all("kb_vector_candidates", model=model, bytes=4 * query.shape[0], **filters.binds())
        return kb.rank_by_cosine(rows, query, limit)

    @staticmethod
    def _bindable(params: Mapping[str, Any]) -> dict[str, Any]:
        return {k: kb.to_blob(v) if isinstance(v, np.ndarray) else v for k, v in params.items()}

    def _run(self, sql: str, params: Any) -> sqlite3.Cursor:
        if self._walled:
            refuse_base_table_names(sql)
        if isinstance(params, dict):
            params = self._bindable(params)
        try:
            return self._conn.execute(sql, params)
        except sqlite3.Error as exc:
            raise translate_sqlite_error(exc) from exc


class SqliteBackend:
    dialect = DIALECT
    query_dialect = SQLITE_QUERY_DIALECT
    portable_sql = portable.SQL

    def __init__(self, path: str | Path, *, create: bool = True, busy_timeout_ms: int = 5000):
        self.path = Path(path).expanduser()
        self._busy_timeout_ms = busy_timeout_ms
        self._pool = ConnectionPool(self._connect, idle_max=_POOL_IDLE_MAX)
        #: unwalled connections for operator statements; no authorizer is ever installed on them
        self._operator_pool = ConnectionPool(self._connect, idle_max=_OPERATOR_IDLE_MAX)
        self._queries = ReadonlyQueries(self.path, busy_timeout_ms=busy_timeout_ms)
        #: each scope's embeddings in memory, refreshed by the tenant's change counter (vector_cache.py)
        self.vector_cache = VectorCache()
        if not self.path.exists():
            if not create:
                raise BackendUnavailable(
                    f"no database at {self.path}.", hint=f"Run `memgate --db {shlex.quote(str(self.path))} init` first."
                )
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.migrate()

    # -- connections -------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=self._busy_timeout_ms / 1000
            )
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout_ms)}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
        except sqlite3.Error as exc:
            raise BackendUnavailable(
                f"cannot open SQLite database {self.path}", hint="Check database.path and its folder's permissions."
            ) from exc
        return conn

    def _checkout(self, tenant: str | None = None) -> WalledConnection:
        pooled = self._pool.take()
        try:
            pooled.refresh_wall(self._build_wall)
            if tenant is not None:
                self._point_lexical_index(pooled, tenant)
        except BaseException:
            self._pool.give(pooled)
            raise
        return pooled

    def _point_lexical_index(self, pooled: WalledConnection, tenant: str) -> None:
        """Point the connection's kb_chunk_match at the tenant's lexical index, making the index first
        if the tenant has none (once per tenant and file). The backend's own DDL: the wall is lifted
        only while it runs, and the tenant is the bound identity's, quoted as a literal."""
        conn = pooled.conn
        slot = pooled.lexical_slots.get(tenant)
        if slot is not None and slot == pooled.match_slot:
            return
        made = False
        with pooled.wall_lifted():
            if slot is None:
                try:
                    slot = lexical.ensure_index(conn, tenant, schema.run_script)
                except sqlite3.Error as exc:
                    raise translate_sqlite_error(exc) from exc
                made = True
            lexical.point_match_view(conn, slot)
            pooled.match_slot = slot
        if made:
            pooled.schema_version = None  # the index's triggers and view are new sources to trust
            pooled.refresh_wall(self._build_wall)

    @staticmethod
    def _build_wall(pooled: WalledConnection) -> None:
        conn = pooled.conn
        rows = conn.execute(load_sql(DIALECT, "catalog_schema_objects")).fetchall()
        pooled.authorizer = walled_authorizer(
            frozenset(r[0] for r in rows), schema.fts5_shadow_tables(conn), schema.fts5_tables(conn)
        )
        pooled.lexical_slots = lexical.slots(conn)

    @contextmanager
    def session(self, identity: Identity, *, now: str | None = None) -> Iterator[SqliteSession]:
        pooled = self._checkout(identity.tenant)
        pooled.context.bind(identity, now)
        try:
            yield SqliteSession(
                pooled.conn,
                vectors=(self.vector_cache, (identity.tenant, identity.user, identity.agent, identity.thread)),
            )
        finally:
            self._pool.give(pooled)

    @contextmanager
    def operator_session(self) -> Iterator[SqliteSession]:
        """No tenant bound and no wall: only for operator statements (sql/sqlite/operator_*.sql)."""
        pooled = self._operator_pool.take()
        try:
            yield SqliteSession(pooled.conn, walled=False)
        finally:
            self._operator_pool.give(pooled)  # rolled back if a transaction is still open

    @contextmanager
    def retention_store(self, tenant: str) -> Iterator[RetentionStore]:
        """One tenant's rows whatever their scope, for retention and erasure (operator only)."""
        conn = self._connect()
        try:
            with retention.retention_store(
                conn, tenant, SqliteSession(conn, walled=False), self.vector_cache.forget_tenant
            ) as store:
                yield store
        finally:
            conn.close()

    def merge_lexical_indexes(self, tenant: str, pages: int) -> dict[str, str]:
        with self.unwalled_connection() as conn:
            done = lexical_merge.merge_tenant(conn, tenant, pages)
        return {index: f"{before} -> {after} segment(s)" for index, (before, after) in done.items()}

    def physical_table(self, table: str) -> str:
        return f"base_{table}"

    def tables(self) -> list[str]:
        with self.unwalled_connection() as conn:
            return [name[len("base_") :] for name in schema.base_tables(conn)]

    @contextmanager
    def unwalled_connection(self) -> Iterator[sqlite3.Connection]:
        """A raw connection with the context functions but no authorizer (migrations, SQLite-only tests)."""
        conn = self._connect()
        install_context_functions(conn, ConnectionContext())
        try:
            yield conn
        finally:
            conn.close()

    # -- schema ------------------------------------------------------------
    def migrate(self) -> tuple[int, int]:
        with self.unwalled_connection() as conn:
            return schema.migrate(conn, str(self.path))

    def check_schema(self) -> None:
        with self.unwalled_connection() as conn:
            schema.check_schema(conn, str(self.path))

    def schema_version(self) -> int:
        with self.unwalled_connection() as conn:
            return schema.schema_version(conn)

    def known_schema_version(self) -> int:
        return schema.known_version()

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "backend": "sqlite",
            "path": str(self.path),
            "sqlite_version": sqlite3.sqlite_version,
            "known_schema_version": schema.known_version(),
        }
        with self.unwalled_connection() as conn:
            info["schema_version"] = schema.schema_version(conn)
            info["journal_mode"] = conn.execute("PRAGMA journal_mode").fetchone()[0]
        info["summary"] = f"SQLite {info['sqlite_version']}, journal {info['journal_mode']}"
        return info

    def install_checks(self) -> list[InstallCheck]:
        return []  # the migrations are the whole install: check_schema() says what is wrong

    # -- execute_query -----------------------------------------------------
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

    @contextmanager
    def query_connection(self, identity: Identity) -> Iterator[sqlite3.Connection]:
        """The raw read-only query connection, wall installed, no text check: SQLite-only tests of the authorizer."""
        with self._queries.walled_connection(identity) as conn:
            yield conn

    def set_call_timeout(self, seconds: float) -> None:
        """Nothing to bound: statements run in-process, lock waits end at busy_timeout."""

    def set_query_temp_caps(self, query_mb: int, total_mb: int) -> None:
        self._queries.temp_caps = TempCaps(query_bytes=query_mb * MB, total_bytes=total_mb * MB)

    def database_embedder(self) -> None:
        return None  # SQLite runs no models: the manager's local embedder makes every vector

    def close(self) -> None:
        self.vector_cache.clear()
        self._pool.close()
        self._operator_pool.close()
        self._queries.close()
