"""SQLite schema files: a newer version, a foreign file and a missing file are refused with the fix."""

from __future__ import annotations

import sqlite3

import pytest
from backend_helpers import open_sqlite

from memgate.manager.errors import SchemaMismatch


def test_a_newer_schema_is_refused_with_the_fix(backend, sqlite_path):
    known = backend.known_schema_version()
    with sqlite3.connect(sqlite_path) as conn:
        conn.execute("INSERT INTO memgate_schema (version) VALUES (?)", (known + 1,))
    with pytest.raises(SchemaMismatch, match=f"has schema version {known + 1}, newer than this memgate knows") as err:
        backend.check_schema()
    assert err.value.with_hint() == (
        f"{sqlite_path} has schema version {known + 1}, newer than this memgate knows ({known}). "
        "Upgrade memgate, or point database.path at another file."
    )
    with pytest.raises(SchemaMismatch, match=f"has schema version {known + 1}, newer than this memgate knows"):
        backend.migrate()


def test_a_sqlite_file_that_is_not_memgate_is_refused(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(SchemaMismatch, match="is not a memgate database"):
        open_sqlite(path).check_schema()


def test_a_missing_file_is_not_created_when_creation_is_off(tmp_path):
    from memgate.manager.errors import BackendUnavailable

    with pytest.raises(BackendUnavailable, match="^no database at ") as err:
        open_sqlite(tmp_path / "absent.db", create=False)
    assert err.value.with_hint() == (
        f"no database at {tmp_path / 'absent.db'}. Run `memgate --db {tmp_path / 'absent.db'} init` first."
    )
    assert not (tmp_path / "absent.db").exists()
