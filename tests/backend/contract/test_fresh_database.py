"""Each Oracle contract test starts from an empty database, as each SQLite one starts from a new file:
the list of tables the fixture empties is every table the install creates, operator tables included,
in an order the foreign keys allow. Read from the install files, so it holds without a database."""

from __future__ import annotations

import re

from backend_helpers import ORACLE_INSTALL, oracle_install_tables

_CREATED = re.compile(r"^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", re.IGNORECASE | re.MULTILINE)


def test_the_oracle_half_empties_every_install_table_operator_tables_included():
    tables = oracle_install_tables()
    created = {name.lower() for p in ORACLE_INSTALL.glob("*.sql") for name in _CREATED.findall(p.read_text())}
    assert set(tables) == created - {"memgate_schema"} and len(tables) == len(set(tables))
    assert {"tenant_mapping", "server_secret", "erasure_log", "erasure_row"} <= set(tables)


def test_a_table_is_emptied_before_the_table_it_references():
    tables = oracle_install_tables()
    assert tables.index("memory_file") < tables.index("memory_store")
    assert tables.index("erasure_row") < tables.index("erasure_log")


def test_the_fixture_empties_that_list_not_only_the_tables_the_app_account_can_see():
    """backend.tables() lists what MEMGATE_APP may touch, which leaves the operator tables full."""
    import ast
    from pathlib import Path

    module = ast.parse((Path(__file__).parent / "conftest.py").read_text())
    (empty,) = [f for f in ast.walk(module) if isinstance(f, ast.FunctionDef) and f.name == "_empty"]
    called = {ast.unparse(c.func) for c in ast.walk(empty) if isinstance(c, ast.Call)}
    assert "oracle_install_tables" in called and "backend.tables" not in called
