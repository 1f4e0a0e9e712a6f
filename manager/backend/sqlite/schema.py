"""Creates and upgrades the SQLite schema, and builds the tenant wall.

Migrations are sql/sqlite/migrations/NNN_name.sql, applied in order inside one
transaction; `memgate_schema` records each version applied. A migration is pending
while its version is not recorded, even below the highest recorded one: migrations are
numbered by the branch that wrote them, so one may land after a higher number did. After every upgrade the
tenant views and guard triggers are rebuilt from the base tables' real columns,
so a new column can never be missed by the wall. The wall is the tenant and, inside
it, the caller's scope: user, agent and thread (tenant_guard.sql says how).
"""

from __future__ import annotations

import re
import shlex
import sqlite3

from ...errors import SchemaMismatch
from ..sql_files import list_sql, load_sql
from . import lexical

_MIGRATION = re.compile(r"^(\d{3})_[a-z0-9_]+$")


def migrations() -> list[tuple[int, str]]:
    found = []
    for name in list_sql("sqlite", "migrations"):
        m = _MIGRATION.match(name)
        if m:
            found.append((int(m.group(1)), name))
    return found


def known_version() -> int:
    return max(v for v, _ in migrations())


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in the file; 0 for a database memgate never initialised."""
    row = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'memgate_schema'").fetchone()
    if row is None:
        return 0
    got = conn.execute("SELECT max(version) FROM memgate_schema").fetchone()[0]
    return int(got or 0)


def applied_versions(conn: sqlite3.Connection) -> set[int]:
    """The migration versions the file records as applied (none for a file memgate never initialised)."""
    if schema_version(conn) == 0:
        return set()
    return {int(v) for (v,) in conn.execute("SELECT version FROM memgate_schema").fetchall()}


def pending_versions(conn: sqlite3.Connection) -> list[int]:
    """Known migrations the file has not applied yet, in order."""
    applied = applied_versions(conn)
    return [v for v, _ in migrations() if v not in applied]


def check_schema(conn: sqlite3.Connection, path: str) -> None:
    """Raise SchemaMismatch unless the file holds exactly the schema this memgate knows."""
    have, want = schema_version(conn), known_version()
    if have == want and not pending_versions(conn):
        return
    if have == want:
        missing = ", ".join(f"{v:03d}" for v in pending_versions(conn))
        raise SchemaMismatch(
            f"{path} lacks migration(s) {missing}.",
            hint="Run `memgate init` to apply them (back up the file first).",
        )
    if have == 0:
        raise SchemaMismatch(
            f"{path} is not a memgate database (no schema version).",
            hint=f"Run `memgate --db {shlex.quote(str(path))} init` to create the schema.",
        )
    if have < want:
        raise SchemaMismatch(
            f"{path} has schema version {have}; this memgate needs version {want}.",
            hint=f"Back up the file, then run `memgate --db {shlex.quote(str(path))} init` to upgrade it.",
        )
    raise SchemaMismatch(
        f"{path} has schema version {have}, newer than this memgate knows ({want}).",
        hint="Upgrade memgate, or point database.path at another file.",
    )


def migrate(conn: sqlite3.Connection, path: str) -> tuple[int, int]:
    """Bring the schema up to date. Returns (version before, version after)."""
    before = schema_version(conn)
    want = known_version()
    if before > want:
        check_schema(conn, path)  # raises with the "newer" message
    pending = pending_versions(conn)
    if not pending:
        return before, want
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS memgate_schema ("
            " version INTEGER PRIMARY KEY,"
            " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))"
        )
        for version, name in migrations():
            if version in pending:
                run_script(conn, load_sql("sqlite", f"migrations/{name}"))
                conn.execute("INSERT INTO memgate_schema (version) VALUES (?)", (version,))
        lexical.index_all_tenants(conn, run_script)
        rebuild_tenant_wall(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return before, want


#: the shadow tables FTS5 creates beside a virtual table <name>: <name>_data, ...
FTS5_SHADOW_SUFFIXES = ("data", "idx", "content", "docsize", "config")
#: base tables only operator sessions read: no tenant view, so no walled connection reaches them
#: (the knowledge base's lexical-index slots and change counters are read through their own views
#: or unwalled by the backend, and written only by triggers and the backend)
OPERATOR_TABLES = frozenset(
    {
        "base_tenant_mapping",
        "base_server_secret",
        "base_kb_lexical_index",
        "base_kb_generation",
        "base_recall_generation",
        "base_erasure_log",
        "base_erasure_row",
        "base_portability_log",
        "base_merge_candidate",
    }
)


def base_tables(conn: sqlite3.Connection) -> list[str]:
    """Base tables under the tenant wall: FTS5 tables, their shadow tables and operator tables get no view."""
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'base\\_%' ESCAPE '\\' ORDER BY name"
    ).fetchall()
    virtual = {name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL TABLE")}
    shadows = {f"{v}_{suffix}" for v in virtual for suffix in FTS5_SHADOW_SUFFIXES}
    return [name for name, _ in rows if name not in virtual and name not in shadows and name not in OPERATOR_TABLES]


def fts5_tables(conn: sqlite3.Connection) -> frozenset[str]:
    """Names of every FTS5 table in the schema."""
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    return frozenset(name for name, sql in rows if "USING FTS5" in " ".join((sql or "").upper().split()))


def fts5_shadow_tables(conn: sqlite3.Connection) -> frozenset[str]:
    """Names of the shadow tables of every FTS5 table in the schema."""
    rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
    return frozenset(
        f"{name}_{suffix}"
        for name, sql in rows
        if "USING FTS5" in " ".join((sql or "").upper().split())
        for suffix in FTS5_SHADOW_SUFFIXES
    )


def rebuild_tenant_wall(conn: sqlite3.Connection) -> None:
    """Drop and recreate every walled view and guard trigger (tenant and scope) from the template."""
    template = load_sql("sqlite", "tenant_guard")
    for base in base_tables(conn):
        table = base[len("base_") :]
        conn.execute(f"DROP VIEW IF EXISTS {table}")
        for suffix in _GUARD_SUFFIXES:
            conn.execute(f"DROP TRIGGER IF EXISTS {base}{suffix}")
        run_script(conn, template.format(**_placeholders(conn, base, table)))


_GUARD_SUFFIXES = tuple(
    f"__{wall}_{action}" for wall in ("tenant", "scope") for action in ("insert", "update", "delete")
)
#: scope columns and the context function each is compared with; NULL means shared at that level
_SCOPE_COLUMNS = (("user_id", "app_user()"), ("agent_id", "app_agent()"), ("thread_id", "app_thread()"))
#: tables with no scope columns of their own: (column, base table it points at, that table's key)
_SCOPED_THROUGH = {"base_memory_file": ("store_id", "base_memory_store", "id")}


def _columns(conn: sqlite3.Connection, base: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({base})").fetchall()]


def _in_scope(columns: list[str], row: str) -> str:
    """SQL that is true when `row` (a prefix like 'NEW.', or '') is in the bound scope."""
    terms = [f"({row}{c} IS NULL OR {row}{c} = {fn})" for c, fn in _SCOPE_COLUMNS if c in columns]
    return " AND ".join(terms) or "1"


def _out_of_scope(columns: list[str], row: str) -> str:
    """SQL that is true when `row` names another user, agent or thread (NULL-safe: never unknown)."""
    terms = [f"({row}{c} IS NOT NULL AND {row}{c} IS NOT {fn})" for c, fn in _SCOPE_COLUMNS if c in columns]
    return "(" + " OR ".join(terms) + ")" if terms else "0"


def _scope_terms(conn: sqlite3.Connection, base: str, cols: list[str]) -> dict[str, str]:
    if base in _SCOPED_THROUGH:
        column, owner, owner_key = _SCOPED_THROUGH[base]
        owner_scope = _in_scope(_columns(conn, owner), "o.")

        def through(row: str) -> str:
            return (
                f"EXISTS (SELECT 1 FROM {owner} o WHERE o.{owner_key} = {row}{column}"
                f" AND o.tenant_id = app_tenant() AND {owner_scope})"
            )

        return {
            "in_scope": through(f"{base}."),
            "new_out_of_scope": f"NOT {through('NEW.')}",
            "old_out_of_scope": f"NOT {through('OLD.')}",
        }
    return {
        "in_scope": _in_scope(cols, ""),
        "new_out_of_scope": _out_of_scope(cols, "NEW."),
        "old_out_of_scope": _out_of_scope(cols, "OLD."),
    }


def _placeholders(conn: sqlite3.Connection, base: str, table: str) -> dict[str, str]:
    info = conn.execute(f"PRAGMA table_info({base})").fetchall()
    cols = [r[1] for r in info]
    key = next(r[1] for r in info if r[5] == 1)
    values = []
    for _cid, name, _type, _notnull, default, _pk in info:
        if name == "tenant_id":
            # Omitting tenant_id writes for the bound tenant; naming another is refused.
            values.append("COALESCE(NEW.tenant_id, app_tenant())")
        elif default is not None:
            values.append(f"COALESCE(NEW.{name}, {default})")
        else:
            values.append(f"NEW.{name}")
    return {
        "table": table,
        "base": base,
        "key": key,
        "columns": ", ".join(cols),
        "new_values": ", ".join(values),
        "set_list": ", ".join(f"{c} = NEW.{c}" for c in cols),
        **_scope_terms(conn, base, cols),
    }


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """Run `;`-separated statements one by one (executescript would commit)."""
    buf = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            conn.execute(buf)
            buf = ""
    if buf.strip():
        conn.execute(buf)
