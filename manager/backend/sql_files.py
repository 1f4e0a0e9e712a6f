"""Loads named SQL statements shipped in memgate.sql/<dialect>/."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load_sql(dialect: str, name: str) -> str:
    """The text of sql/<dialect>/<name>.sql (name may contain a subfolder)."""
    path = resources.files("memgate.sql").joinpath(dialect, f"{name}.sql")
    return path.read_text(encoding="utf-8")


def list_sql(dialect: str, folder: str) -> list[str]:
    """Names (without .sql) of the statements in sql/<dialect>/<folder>/, sorted."""
    base = resources.files("memgate.sql").joinpath(dialect, folder)
    return sorted(p.name[:-4] for p in base.iterdir() if p.name.endswith(".sql"))
