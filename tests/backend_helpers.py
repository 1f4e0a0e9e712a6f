"""Reading a backend as the operator, through the protocol: for tests on any backend."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

from memgate.manager import DatabaseSettings, open_backend


def open_sqlite(path, **kwargs):
    """A SQLite backend on `path`, as a second process would open it."""
    return open_backend(DatabaseSettings(path=path), **kwargs)


def sqlite_file_with(path, applied: Callable[[int], bool]):
    """A SQLite file with only the migrations `applied` keeps (by number) and their tenant wall, as an
    older memgate made it: its connection (autocommit) and the context holder to bind a writer with.
    For tests of a migration on the rows that came before it."""
    from memgate.manager.backend.sql_files import load_sql
    from memgate.manager.backend.sqlite import schema
    from memgate.manager.backend.sqlite.context import ConnectionContext, install_context_functions

    conn = sqlite3.connect(path, isolation_level=None)
    context = ConnectionContext()
    install_context_functions(conn, context)
    conn.execute("CREATE TABLE memgate_schema (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for version, name in schema.migrations():
        if applied(version):
            schema.run_script(conn, load_sql("sqlite", f"migrations/{name}"))
            conn.execute("INSERT INTO memgate_schema (version) VALUES (?)", (version,))
    schema.rebuild_tenant_wall(conn)
    return conn, context


def operator_rows(backend, table: str, where: str = "", params: dict | None = None) -> list[dict]:
    """Every row of a logical table across tenants, read as the operator."""
    with backend.operator_session() as s:
        return s.raw(f"SELECT * FROM {backend.physical_table(table)} {where}", params or {})


def tenant_counts(backend) -> dict[str, list[tuple]]:
    """Per table, (tenant_id, row count) across tenants: to show a refused write changed nothing."""
    counts = {}
    for table in backend.tables():
        rows = operator_rows(backend, table)
        per: dict[str, int] = {}
        for r in rows:
            per[r["tenant_id"]] = per.get(r["tenant_id"], 0) + 1
        counts[table] = sorted(per.items())
    return counts


#: what every tool call writes: skipping the call log skips the ids its ok calls cited too
CALL_LOG = {"mcp_call_log": ("mcp_call_cited",), "base_mcp_call_log": ("base_mcp_call_cited",)}


def with_call_log(skip: tuple[str, ...]) -> set[str]:
    """`skip`, and with the call log (logical or base name) the call log's cited ids as well."""
    return {*skip, *(t for name in skip for t in CALL_LOG.get(name, ()))}


def table_digest(backend, tables=None, skip: tuple[str, ...] = ()) -> str:
    """A digest of every row of `tables` (default: all) but `skip`, across tenants, in a stable order.
    Skipping `mcp_call_log` skips `mcp_call_cited` too (the ids its ok calls cited, written with it)."""
    import hashlib

    digest = hashlib.sha256()
    skip = tuple(with_call_log(skip))
    for table in sorted(tables or backend.tables()):
        if table in skip:
            continue
        digest.update(table.encode())
        for row in sorted(repr(sorted(r.items())) for r in operator_rows(backend, table)):
            digest.update(row.encode())
    return digest.hexdigest()


ORACLE_INSTALL = Path(__file__).resolve().parents[1] / "sql" / "oracle" / "install"
#: install tables that are not emptied: the schema version the install records
_KEPT = {"memgate_schema"}
_CREATE_TABLE = re.compile(
    r"^CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s*\((.*?)^\)", re.IGNORECASE | re.MULTILINE | re.DOTALL
)
_REFERENCES = re.compile(r"\bREFERENCES\s+(\w+)", re.IGNORECASE)


def oracle_install_tables() -> list[str]:
    """Every table sql/oracle/install/ creates (globbed: a file added later counts too) but
    memgate_schema, each after every table that references it: the order rows can be deleted in."""
    refs: dict[str, set[str]] = {}
    for path in sorted(ORACLE_INSTALL.glob("*.sql")):
        for name, body in _CREATE_TABLE.findall(path.read_text(encoding="utf-8")):
            refs[name.lower()] = {r.lower() for r in _REFERENCES.findall(body)} - {name.lower()}
    order: list[str] = []

    def visit(table: str) -> None:
        if table in order:
            return
        for child in sorted(t for t, parents in refs.items() if table in parents):
            visit(child)
        order.append(table)

    for table in sorted(refs):
        visit(table)
    return [t for t in order if t not in _KEPT]
