"""Operator access to one tenant's base rows for retention and erasure (manager/retention/ drives it).

A RetentionStore reads and writes the tenant's rows whatever their scope, on the operator's
authority (file access on SQLite, the schema owner on Oracle), a table batch at a time. It
composes its statements from checked identifiers (the retention registry's table, key and
column names) and the dialect's templates (`RetentionSql`); the erasure record and the erased
keys are named statements (sql/<dialect>/retention_*.sql). A write is made in the scope of the
row it touches (`bind_scope`): SQLite's guard triggers refuse a write outside the bound scope,
so the store binds each batch's (user, agent, thread) in turn; on Oracle the owner's operator
path is let through by the guards and the call is a no-op.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidArgument, MemgateError
from .base import Row, Session

__all__ = ["RetentionSql", "RetentionStore", "RowFilter", "TableShape"]

_SCOPE = ("user_id", "agent_id", "thread_id")


@dataclass(frozen=True)
class RetentionSql:
    """A dialect's templates. Placeholders are filled with checked identifiers only."""

    #: {columns} {source} {where} {order}; binds :batch and those of {where}
    select: str
    #: membership of {column} in the JSON list bound as :{bind}
    in_json: str
    #: {table} {key} {in_keys}
    delete: str
    #: {table} {assignments} {key} {in_keys}
    update: str
    #: the logical table's name in the operator's schema (SQLite: base_<table>)
    physical: Callable[[str], str]
    #: {column} (text, a CLOB on Oracle) differs from the value bound as :{bind}
    differs: str = "{column} <> :{bind}"


@dataclass(frozen=True)
class TableShape:
    """Where a table's rows and their scope are: its own scope columns, or its owner's (through)."""

    table: str
    key: str
    #: (column, owner table, owner key) for a table scoped through another (memory_file -> memory_store)
    through: tuple[str, str, str] | None = None
    #: the scope columns the table (or its owner) has; one it lacks reads as NULL (a conversation has
    #: no thread_id: its thread's name is not a scope)
    scope_columns: tuple[str, ...] = _SCOPE


@dataclass(frozen=True)
class RowFilter:
    """Which of the tenant's rows a step reads. Every given condition must hold."""

    #: scope column -> the subject (forget: user_id = 'jane'); on a table scoped through its owner,
    #: the owner's column
    subject: tuple[str, str] | None = None
    #: (time column, cutoff): rows written before the cutoff (expire)
    older_than: tuple[str, str] | None = None
    #: columns naming another row: rows whose column names a key this erasure removed
    erased_refs: tuple[str, ...] = ()
    #: fixed equalities (event_type = 'context_manifest')
    equals: tuple[tuple[str, str], ...] = ()
    #: fixed inequalities (NULL counts as different)
    not_equals: tuple[tuple[str, str], ...] = ()
    #: (column, marker): rows not yet scrubbed (the column is NULL or not the marker)
    unscrubbed: tuple[str, str] | None = None
    #: (column, owner table, owner key): rows whose owner row is gone (a document's chunks)
    orphaned: tuple[str, str, str] | None = None
    #: rows whose key sorts after this one (paging through a table read in Python)
    after: str | None = None
    #: scope columns that are NULL (shared at that level; the owner's, for a table scoped through it)
    null: tuple[str, ...] = ()
    #: (column, owner table, owner key, owner's column, value): rows whose column names an owner row
    #: whose column holds the value (a turn of a conversation of thread name 'x': export by thread)
    owned_by: tuple[str, str, str, str, str] | None = None
    #: the same, negated: rows whose column names no such owner row (NULL included)
    not_owned_by: tuple[str, str, str, str, str] | None = None


def _ident(name: str) -> str:
    if not name.replace("_", "a").isalnum() or not name[0].isalpha():
        raise InvalidArgument(f"not an identifier: {name!r}", field="table")
    return name


class RetentionStore:
    """One tenant's rows for the operator, through `session` (unwalled) and `bind_scope`."""

    def __init__(
        self,
        session: Session,
        tenant: str,
        sql: RetentionSql,
        bind_scope: Callable[[str | None, str | None, str | None], None],
        finish: Callable[[bool], dict[str, Any]],
    ):
        self.session = session
        self.tenant = tenant
        self._sql = sql
        self._bind_scope = bind_scope
        self._finish = finish
        self._open = False

    # -- transactions ------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One table batch; nested in an open one (a dry run) it joins it."""
        if self._open:
            yield
            return
        self._open = True
        try:
            with self.session.transaction():
                yield
        finally:
            self._open = False

    @contextmanager
    def rolled_back(self) -> Iterator[None]:
        """Everything inside runs in one transaction that is rolled back (a dry run's exact counts)."""

        class _Undo(Exception):
            pass

        try:
            with self.transaction():
                yield
                raise _Undo
        except _Undo:
            pass

    # -- rows --------------------------------------------------------------------------
    def select(
        self, shape: TableShape, where: RowFilter, limit: int, *, erasure: str | None = None, extra: Sequence[str] = ()
    ) -> list[Row]:
        """Up to `limit` matching rows: row_key, their scope (user_id, agent_id, thread_id) and `extra` columns."""
        table = self._sql.physical(_ident(shape.table))
        key = _ident(shape.key)
        params: dict[str, Any] = {"tenant": self.tenant, "batch": int(limit)}
        owner = "t" if shape.through is None else "o"
        scope = [f"{owner}.{c}" if c in shape.scope_columns else f"NULL AS {c}" for c in _SCOPE]
        columns = [f"t.{key} AS row_key", *scope] + [f"t.{_ident(c)}" for c in extra]
        if shape.through is None:
            source = f"{table} t"
        else:
            column, owner_table, owner_key = (_ident(x) for x in shape.through)
            source = f"{table} t JOIN {self._sql.physical(owner_table)} o ON o.{owner_key} = t.{column}"
        terms = ["t.tenant_id = :tenant"]
        if where.subject is not None:
            terms.append(f"{owner}.{_ident(where.subject[0])} = :subject")
            params["subject"] = where.subject[1]
        for column in where.null:
            terms.append(f"{owner}.{_ident(column)} IS NULL")
        if where.older_than is not None:
            terms.append(f"t.{_ident(where.older_than[0])} < :cutoff")
            params["cutoff"] = where.older_than[1]
        for n, (column, value) in enumerate(where.equals):
            terms.append(f"t.{_ident(column)} = :eq{n}")
            params[f"eq{n}"] = value
        for n, (column, value) in enumerate(where.not_equals):
            terms.append(f"(t.{_ident(column)} IS NULL OR t.{_ident(column)} <> :ne{n})")
            params[f"ne{n}"] = value
        if where.unscrubbed is not None:
            column = _ident(where.unscrubbed[0])
            differs = self._sql.differs.format(column=f"t.{column}", bind="marker")
            terms.append(f"(t.{column} IS NULL OR {differs})")
            params["marker"] = where.unscrubbed[1]
        if where.orphaned is not None:
            column, owner_table, owner_key = (_ident(x) for x in where.orphaned)
            terms.append(
                f"NOT EXISTS (SELECT 1 FROM {self._sql.physical(owner_table)} p"
                f" WHERE p.{owner_key} = t.{column} AND p.tenant_id = t.tenant_id)"
            )
        for negated, owned in ((False, where.owned_by), (True, where.not_owned_by)):
            if owned is None:
                continue
            column, owner_table, owner_key, owner_column, value = owned
            bind = "not_owner_value" if negated else "owner_value"
            owners = (
                f"(SELECT p.{_ident(owner_key)} FROM {self._sql.physical(_ident(owner_table))} p"
                f" WHERE p.tenant_id = :tenant AND p.{_ident(owner_column)} = :{bind})"
            )
            col = f"t.{_ident(column)}"
            terms.append(f"({col} IS NULL OR {col} NOT IN {owners})" if negated else f"{col} IN {owners}")
            params[bind] = value
        if where.after is not None:
            terms.append(f"t.{key} > :after")
            params["after"] = where.after
        if where.erased_refs:
            if erasure is None:
                raise InvalidArgument("a reference filter needs the erasure that removed the rows", field="erasure")
            erased = f"(SELECT r.row_key FROM {self._sql.physical('erasure_row')} r WHERE r.erasure_id = :erasure)"
            terms.append("(" + " OR ".join(f"t.{_ident(c)} IN {erased}" for c in where.erased_refs) + ")")
            params["erasure"] = erasure
        sql = self._sql.select.format(
            columns=", ".join(columns), source=source, where=" AND ".join(terms), order=f"t.{key}"
        )
        return self.session.raw(sql, params)

    def batches(
        self, shape: TableShape, where: RowFilter, limit: int, *, erasure: str | None = None
    ) -> Iterator[list[Row]]:
        """select() a batch at a time, for a caller that deletes or scrubs each batch before the next.

        A batch that holds a row the previous one held means that write did not reach what the
        select saw (the two disagree about which rows are the tenant's): raise rather than loop."""
        previous: set[str] = set()
        while rows := self.select(shape, where, limit, erasure=erasure):
            keys = {str(r["row_key"]) for r in rows}
            if again := keys & previous:
                raise MemgateError(
                    f"{shape.table}: row {min(again)} was selected again after its batch was written; stopped",
                    hint="The store's select and its write disagree about the rows; report this as a bug.",
                )
            yield rows
            previous = keys

    def named(self, statement: str, keys: Sequence[str]) -> list[Row]:
        """The rows a named statement (sql/<dialect>/NAME.sql: :tenant, :keys) selects for `keys`."""
        return self.session.fetch_all(statement, tenant=self.tenant, keys=json.dumps(list(keys)))

    def delete(self, shape: TableShape, rows: Sequence[Row]) -> int:
        """Delete `rows` (from select), each in its own scope."""
        table, key = self._sql.physical(_ident(shape.table)), _ident(shape.key)
        for scope, keys in _by_scope(rows).items():
            self._bind_scope(*scope)
            in_keys = self._sql.in_json.format(column=key, bind="keys")
            self.session.raw(
                self._sql.delete.format(table=table, key=key, in_keys=in_keys),
                {"tenant": self.tenant, "keys": json.dumps(keys)},
            )
        return len(rows)

    def update(self, shape: TableShape, rows: Sequence[Row], values: dict[str, Any]) -> int:
        """Set `values` on `rows` (from select), each in its own scope."""
        table, key = self._sql.physical(_ident(shape.table)), _ident(shape.key)
        assignments = ", ".join(f"{_ident(c)} = :v_{c}" for c in values)
        for scope, keys in _by_scope(rows).items():
            self._bind_scope(*scope)
            in_keys = self._sql.in_json.format(column=key, bind="keys")
            self.session.raw(
                self._sql.update.format(table=table, assignments=assignments, key=key, in_keys=in_keys),
                {"tenant": self.tenant, "keys": json.dumps(keys), **{f"v_{c}": v for c, v in values.items()}},
            )
        return len(rows)

    # -- the erasure record ---------------------------------------------------------------
    def running_erasure(self, kind: str, subject: str) -> Row | None:
        return self.session.fetch_one("retention_erasure_running", tenant=self.tenant, kind=kind, subject=subject)

    def start_erasure(self, erasure: str, kind: str, subject: str, requested_by: str, now: str) -> None:
        self.session.execute(
            "retention_erasure_start",
            erasure=erasure,
            tenant=self.tenant,
            kind=kind,
            subject=subject,
            requested_by=requested_by,
            now=now,
        )

    def record_counts(self, erasure: str, counts: dict[str, int]) -> None:
        self.session.execute("retention_erasure_counts", erasure=erasure, counts=json.dumps(counts, sort_keys=True))

    def finish_erasure(self, erasure: str, now: str) -> None:
        self.session.execute("retention_erasure_finish", erasure=erasure, now=now)

    def tombstone(self, erasure: str, table: str, keys: Sequence[str]) -> None:
        """Record the keys an erasure removed (no content), in the caller's transaction."""
        self.session.execute(
            "retention_erasure_tombstone",
            erasure=erasure,
            tenant=self.tenant,
            table_name=table,
            keys=json.dumps(list(keys)),
        )

    def erased(self, ids: Sequence[str]) -> set[str]:
        """Which of `ids` an erasure of this tenant removed."""
        rows = self.session.fetch_all("retention_erased_ids", tenant=self.tenant, ids=json.dumps(list(ids)))
        return {r["row_key"] for r in rows}

    def erasures(self, limit: int = 20) -> list[Row]:
        rows, _ = self.session.fetch_page("retention_erasures", limit, tenant=self.tenant)
        return rows

    def policy(self) -> Row | None:
        """The tenant-wide retention guideline's open version (content_json), or None."""
        return self.session.fetch_one("retention_policy", tenant=self.tenant)

    def finish(self, compact: bool) -> dict[str, Any]:
        """After erasing or expiring: purge what the database keeps of removed rows beside them (SQLite:
        the tenant's FTS5 segments, freed pages with `compact`, the WAL); what was done, for the report."""
        return self._finish(compact)


def _by_scope(rows: Sequence[Row]) -> dict[tuple[str | None, str | None, str | None], list[str]]:
    groups: dict[tuple[str | None, str | None, str | None], list[str]] = {}
    for r in rows:
        groups.setdefault((r["user_id"], r["agent_id"], r["thread_id"]), []).append(str(r["row_key"]))
    return groups
