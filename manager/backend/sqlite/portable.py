"""SQLite's templates for whole rows by key (manager/backend/portable_rows.py), run on walled views."""

from __future__ import annotations

from ..portable_rows import PortableSql

SQL = PortableSql(
    select_keys="SELECT * FROM {table} WHERE {key} {in_keys} ORDER BY {key}",
    in_json="IN (SELECT value FROM json_each(:{bind}))",
    update_key="UPDATE {table} SET {assignments} WHERE {key} = :key",
)
