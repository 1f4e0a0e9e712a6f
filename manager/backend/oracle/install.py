"""Runs sql/oracle/install/ and records the schema version: `memgate init` on Oracle.

The files are SQL*Plus/SQLcl scripts too (sql/oracle/install/README.md): every statement
ends with a line holding only "/", SQL statements carry no trailing ";", and `&&name`
substitution variables (passwords, the tablespace, the version) are replaced here before
a statement is sent, because DDL takes no bind variables. Two files need a DBA
(DBA_FILES): they run only when [database] admin_user is set, else the DBA runs them in
SQLcl first. Every file is re-runnable, so an interrupted install is finished by running
it again; the version row is written last.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ...errors import ConfigError
from ..sql_files import list_sql, load_sql

__all__ = ["DBA_FILES", "SCHEMA_VERSION", "owner_files", "script_units", "substitute"]

#: the schema version these scripts install; raise it with every change to sql/oracle/install/
SCHEMA_VERSION = 6
#: files a DBA runs (accounts and system privileges; synonyms in the query account's schema)
DBA_FILES = ("010_accounts", "015_query_synonyms")

_TERMINATOR = re.compile(r"^/\s*$")
_SUBSTITUTION = re.compile(r"&&([A-Za-z_][A-Za-z0-9_]*)\.?")
_COMMENT_LINE = re.compile(r"^\s*(--.*)?$")


def owner_files() -> list[str]:
    """The install files the schema owner runs, in order."""
    return [name for name in list_sql("oracle", "install") if name not in DBA_FILES]


def script_units(text: str) -> list[str]:
    """The statements of one install file: the text between "/" lines, comment-only units dropped.

    Raises ConfigError when statement text follows the last "/" (it would never run).
    """
    units, current = [], []
    for line in text.splitlines():
        if _TERMINATOR.match(line):
            units.append("\n".join(current))
            current = []
        else:
            current.append(line)
    if any(not _COMMENT_LINE.match(line) for line in current):
        raise ConfigError("an install script has a statement after its last '/' line, which would never run")
    return [u.strip("\n") for u in units if any(not _COMMENT_LINE.match(line) for line in u.splitlines())]


def substitute(unit: str, values: Mapping[str, str]) -> str:
    """`unit` with every &&name replaced; a name without a value is an error, never left in."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1).lower()
        if name not in values:
            raise ConfigError(f"install script variable &&{name} has no value")
        return values[name]

    return _SUBSTITUTION.sub(value, unit)


def run_file(name: str, values: Mapping[str, str], execute: Callable[[str], None]) -> int:
    """Send each statement of sql/oracle/install/<name>.sql to `execute`; returns how many ran."""
    units = script_units(load_sql("oracle", f"install/{name}"))
    for unit in units:
        execute(substitute(unit, values))
    return len(units)
