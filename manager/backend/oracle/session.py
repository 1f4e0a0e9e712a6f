"""OracleSession: the named statements, retrieval legs and change marker over one connection.

The session runs under the identity the backend bound (memgate_ctx_pkg.set_identity) or as the
owner (operator path). Outside transaction() each write commits, as SQLite's autocommit does.
Fetched values reach the manager as it reads them: LOB and IS JSON columns as text
(fetch_types.py, the connection's handler), VECTORs as float32 bytes (values.py), read before
the cursor, and the connection, are given back.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import oracledb

from ...errors import InvalidArgument, NotFound
from ...identity import Identity
from ..base import ChunkFilters, RecallFilters, Row, TermStats
from ..sql_files import load_sql
from . import statements as q
from .errors import is_call_timeout, translate
from .kb import term_expression, text_expression
from .values import binds, column_name, cut_bytes, long_document_sizes, row_value

__all__ = ["DIALECT", "MODULE", "OracleSession", "set_call_attributes"]

DIALECT = "oracle"
MODULE = "memgate"
#: statements whose text columns hold '' as NULL (Oracle stores an empty string as NULL)
_EMPTY_WHEN_NULL = {
    "memory_file_get": ("content",),
    "operator_tenant_mapping_list": ("issuer",),
    "operator_tenant_mapping_match": ("issuer",),
    "operator_tenant_mapping_delete": ("issuer",),
}


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
            **filters.binds(),
        )
        return [(int(r["seq"]), float(r["score"])) for r in rows]

    def kb_term_stats(self, words: Sequence[str], *, exclude_document: str | None = None) -> TermStats:
        """Each word's count of the caller's chunks it matches, by COUNT(*) with CONTAINS (the count
        Oracle Text's documentation gives for "the number of documents that contain the word"), and
        the caller's chunks: one statement per word, which VPD walls like every other. The index does
        not stem, so a word counts its own form only, as the lexical leg matches it. Not measured on a
        live database."""
        words = list(dict.fromkeys(words))

        def count(statement: str, **binds: Any) -> int:
            row = self.fetch_one(statement, **binds)
            return int(row["chunks"]) if row else 0

        chunks = count("kb_chunk_count", document=None)
        if exclude_document is not None:
            chunks -= count("kb_chunk_count", document=exclude_document)
        holding: dict[str, int] = {}
        for w in words:
            expr = term_expression(w)
            n = count("kb_term_chunks", expr=expr, document=None) if expr else 0
            if n and exclude_document is not None:
                n -= count("kb_term_chunks", expr=expr, document=exclude_document)
            holding[w] = max(0, n)
        return TermStats(chunks=max(0, chunks), holding=holding)

    def kb_fused(
        self,
        query: str,
        vector: np.ndarray,
        model: str,
        weights: Mapping[str, float],
        depth: int,
        limit: int,
        filters: ChunkFilters,
    ) -> list[Row]:
        """Both legs and their weighted fusion in one statement (sql/oracle/kb_hybrid.sql): up to `limit`
        rows of seq, score, lexical_score, cosine, lexical_rank and vector_rank, best first, each leg
        cut at `depth`; the same order as convex_fusion (manager/kb/fusion.py) of kb_lexical and kb_vector.
        [] when the query has no word to match or the vector is zero: run the legs apart then.
        Not yet what search_memory runs (it fuses in Python on both backends): not run on a live database."""
        expr = text_expression(query)
        unit = np.asarray(vector, dtype=np.float32)
        if expr is None or not unit.any():
            return []
        return self.fetch_all(
            "kb_hybrid",
            expr=expr,
            query_vector=unit,
            dims=int(unit.shape[0]),
            model=model,
            lexical_weight=float(weights["lexical"]),
            vector_weight=float(weights["vector"]),
            depth=depth,
            limit=limit,
            **filters.binds(),
        )

    def kb_vector(self, vector: np.ndarray, model: str, limit: int, filters: ChunkFilters) -> list[tuple[int, float]]:
        query = np.asarray(vector, dtype=np.float32)
        if not query.any():
            return []
        rows = self.fetch_all(
            "kb_vector_candidates",
            query_vector=query,
            dims=int(query.shape[0]),
            model=model,
            limit=limit,
            **filters.binds(),
        )
        return [(int(r["seq"]), float(r["cosine"])) for r in rows]

    def recall_lexical(self, query: str, limit: int, filters: RecallFilters) -> list[tuple[int, float]]:
        expr = text_expression(query)
        if expr is None:
            return []
        rows = self.fetch_all("recall_lexical", expr=expr, limit=limit, **filters.policy_binds())
        return [(int(r["seq"]), float(r["score"])) for r in rows]

    def recall_vector(
        self, vector: np.ndarray, model: str, limit: int, filters: RecallFilters
    ) -> list[tuple[int, float]]:
        query = np.asarray(vector, dtype=np.float32)
        if not query.any():
            return []
        rows = self.fetch_all(
            "recall_vector_candidates",
            query_vector=query,
            dims=int(query.shape[0]),
            model=model,
            limit=limit,
            **filters.policy_binds(),
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
            if isinstance(params, Mapping) and (sizes := long_document_sizes(sql, params)):
                cur.setinputsizes(**sizes)
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
    conn.module = MODULE
    conn.action = cut_bytes(identity.tool or "session", 32)
    conn.client_identifier = cut_bytes(identity.call_id or identity.principal or identity.tenant, 64)
