"""The Oracle install has SQLite's tables and columns, and execute_query's reviewed views the same
columns on both, checked without an Oracle database.

SQLite's side is a new SQLite file migrated to the newest schema (what `memgate init` makes); the
Oracle side is read from sql/oracle/install/: the CREATE TABLE statements of 020 with the columns
its add_column calls add for later schema versions, and the qv_* views of 050. When a migration
lands on SQLite, these tests name each table, column or view the Oracle install still lacks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sql_checks
import sqlglot
from sqlglot import exp

from memgate.manager import DatabaseSettings, open_backend
from memgate.manager.backend.oracle.install import script_units

INSTALL = Path(__file__).resolve().parents[3] / "sql" / "oracle" / "install"

#: tables only one side has, and why
SQLITE_ONLY = {
    "kb_fts": "SQLite's per-tenant FTS5 indexes (base_kb_fts_<slot>) and their shadow tables; Oracle's "
    "lexical index is the Oracle Text CONTEXT index on knowledge_base_chunk.content (023)",
    "kb_lexical_index": "which tenant's FTS5 index is which slot; Oracle has one CONTEXT index",
    "kb_generation": "the per-tenant chunk change counter the SQLite vector cache checks; Oracle ranks "
    "vectors in the database and caches nothing",
    "recall_fts": "SQLite's per-tenant FTS5 recall indexes (base_recall_fts_<slot>) and their shadow tables; "
    "Oracle's is the Oracle Text CONTEXT index on conversation_recall.content (026)",
    "recall_generation": "the per-tenant recall change counter the SQLite vector cache checks",
}
ORACLE_ONLY = {
    "memgate_schema": "the installed schema version; SQLite records its migrations in its own memgate_schema, "
    "outside the base_ tables",
}

_ADD_COLUMN = re.compile(r"add_column\('(\w+)', '(\w+)'")


def _units(name: str) -> list[str]:
    return script_units((INSTALL / f"{name}.sql").read_text(encoding="utf-8"))


def _parse(unit: str) -> exp.Expr:
    return sqlglot.parse_one(re.sub(r"\bVECTOR\([^)]*\)", "VECTOR", unit), read="oracle")


#: install files that create tables: 020 the first schema, 024 the promotion gate's, 025 retention's,
#: 026 conversations', 028 export and import's, 032 the call log's cited ids
TABLE_FILES = ("020_schema", "024_promotion", "025_retention", "026_conversations", "028_portability", "032_call_cited")


def oracle_tables() -> dict[str, set[str]]:
    tables: dict[str, set[str]] = {}
    for unit in (u for name in TABLE_FILES for u in _units(name)):
        if sql_checks.is_plsql(unit):
            for table, column in _ADD_COLUMN.findall(unit):
                tables[table.lower()].add(column.lower())
            continue
        tree = _parse(unit)
        if isinstance(tree, exp.Create) and tree.kind == "TABLE":
            tables[tree.this.this.name.lower()] = {
                c.name.lower() for c in tree.this.expressions if isinstance(c, exp.ColumnDef)
            }
    return tables


def oracle_views() -> dict[str, list[str]]:
    views = {}
    for unit in _units("050_query_views"):
        tree = None if sql_checks.is_plsql(unit) else _parse(unit)
        if isinstance(tree, exp.Create) and tree.kind == "VIEW":
            name = tree.this.name.lower()
            views[name.removeprefix("qv_")] = [e.alias_or_name.lower() for e in tree.expression.selects]
    return views


@pytest.fixture(scope="module")
def sqlite(tmp_path_factory):
    backend = open_backend(DatabaseSettings(path=tmp_path_factory.mktemp("parity") / "memgate.db"))
    try:
        with backend.operator_session() as s:
            names = [
                r["name"]
                for r in s.raw(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'base\\_%' ESCAPE '\\'"
                )
            ]
            tables = {n.removeprefix("base_"): {r["name"] for r in s.raw(f"PRAGMA table_info({n})")} for n in names}
        views = {v: [c for c, _ in cols] for v, cols in backend.query_catalog().items()}
    finally:
        backend.close()
    return tables, views


#: SQLite indexes Oracle serves with another index, and which (the test checks that one exists)
SERVED_BY = {
    "entity_lookup_ix": "entity_version_uq",  # 021: its leading columns are (tenant_id, subject, predicate)
}
#: an index's name in a CREATE INDEX, also inside an install file's ensure('CREATE INDEX ...') call
_INDEX_NAME = re.compile(r"CREATE\s+(?:UNIQUE\s+)?INDEX\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.IGNORECASE)


def oracle_indexes() -> set[str]:
    """Every index any install file creates, by name."""
    return {name.lower() for path in INSTALL.glob("*.sql") for name in _INDEX_NAME.findall(path.read_text("utf-8"))}


@pytest.fixture(scope="module")
def sqlite_indexes(tmp_path_factory) -> dict[str, str]:
    """The named indexes of a newly migrated SQLite file on its base_ tables: index -> table."""
    backend = open_backend(DatabaseSettings(path=tmp_path_factory.mktemp("parity") / "memgate.db"))
    try:
        with backend.operator_session() as s:
            rows = s.raw(
                "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                "AND tbl_name LIKE 'base\\_%' ESCAPE '\\'"
            )
    finally:
        backend.close()
    return {r["name"].lower(): r["tbl_name"].removeprefix("base_") for r in rows}


def _sqlite_only(name: str) -> bool:
    return any(name == t or name.startswith(f"{t}_") for t in SQLITE_ONLY)


def test_oracle_has_every_sqlite_table_and_column(sqlite):
    tables, _ = sqlite
    oracle = oracle_tables()
    missing = sorted(t for t in tables if t not in oracle and not _sqlite_only(t))
    extra = sorted(t for t in oracle if t not in tables and t not in ORACLE_ONLY)
    assert (missing, extra) == ([], []), (
        f"sql/oracle/install/020_schema.sql lacks tables {missing} (add CREATE TABLE IF NOT EXISTS) and has "
        f"{extra} that SQLite does not; list a deliberate difference in SQLITE_ONLY or ORACLE_ONLY"
    )
    columns = {t: (sorted(tables[t] - oracle[t]), sorted(oracle[t] - tables[t])) for t in tables if t in oracle}
    differ = {t: d for t, d in columns.items() if d != ([], [])}
    assert differ == {}, (
        "columns (missing on Oracle, extra on Oracle) per table; add a missing one with "
        f"add_column(...) at the end of 020 and raise SCHEMA_VERSION: {differ}"
    )


def test_oracle_creates_every_sqlite_index(sqlite_indexes):
    """A migration's index has its Oracle twin of the same name in an install file (ensure(...) or
    CREATE INDEX IF NOT EXISTS), so a lookup made a key read on SQLite is one on Oracle too."""
    oracle = oracle_indexes()
    missing = sorted(
        f"{i} ({t})"
        for i, t in sqlite_indexes.items()
        if i not in oracle and SERVED_BY.get(i) not in oracle and not _sqlite_only(t)
    )
    assert sqlite_indexes and missing == [], (
        f"sql/oracle/install/ creates no index named {missing}: add it to the install file of its table's "
        "feature (re-runnable) and raise SCHEMA_VERSION"
    )


def test_the_reviewed_views_have_the_same_columns(sqlite):
    _, views = sqlite
    oracle = oracle_views()
    assert sorted(oracle) == sorted(views), "050_query_views.sql must define qv_<view> for each SQLite reviewed view"
    differ = {
        v: (sorted(set(views[v]) - set(oracle[v])), sorted(set(oracle[v]) - set(views[v])))
        for v in views
        if set(views[v]) != set(oracle[v])
    }
    assert differ == {}, f"reviewed view columns (missing on Oracle, extra on Oracle): {differ}"


def test_the_parity_readers_see_what_the_files_hold():
    tables, views = oracle_tables(), oracle_views()
    assert {"row_id", "guideline_key"} <= tables["guideline_memory"]
    assert {"secret", "name"} <= tables["server_secret"]
    assert views["guideline_memory_history"][-1] == "status"
    assert set(SQLITE_ONLY) | set(ORACLE_ONLY)
