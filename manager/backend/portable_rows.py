"""Whole rows of any walled table, by key, through the caller's wall: what export reads and import writes.

The portability commands (manager/portability/) move every column of a row, for every table the
retention registry lists, so they compose two statements from checked identifiers (the
registry's table, key and column names) and the dialect's templates (`PortableSql`), as the
RetentionStore does for the operator. Unlike the RetentionStore these run on a walled session:
the session's identity decides which rows exist, so a key of another tenant, user, agent or
thread reads as absent and cannot be written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidArgument
from .base import Row, Session

__all__ = ["PortableRows", "PortableSql"]


@dataclass(frozen=True)
class PortableSql:
    """A dialect's templates. Placeholders are filled with checked identifiers only."""

    #: {table} {key} {in_keys}; binds :keys (a JSON list)
    select_keys: str
    #: membership of a column in the JSON list bound as :{bind}
    in_json: str
    #: {table} {assignments} {key}; binds :key and one :v_<column> per assignment
    update_key: str


def _ident(name: str) -> str:
    if not name.replace("_", "a").isalnum() or not name[0].isalpha():
        raise InvalidArgument(f"not an identifier: {name!r}", field="table")
    return name


class PortableRows:
    """Rows of one walled session, whole, by key."""

    def __init__(self, session: Session, sql: PortableSql):
        self.session = session
        self._sql = sql

    def by_keys(self, table: str, key: str, keys: Sequence[str]) -> list[Row]:
        """Every column of the rows `keys` name that the session's wall shows, ordered by key."""
        if not keys:
            return []
        text = self._sql.select_keys.format(
            table=_ident(table), key=_ident(key), in_keys=self._sql.in_json.format(bind="keys")
        )
        return self.session.raw(text, {"keys": json.dumps(list(keys))})

    def update(self, table: str, key: str, value: str, columns: Mapping[str, Any]) -> None:
        """Set `columns` on the row `value` keys (a row the wall hides is not touched)."""
        if not columns:
            return
        assignments = ", ".join(f"{_ident(c)} = :v_{c}" for c in columns)
        text = self._sql.update_key.format(table=_ident(table), key=_ident(key), assignments=assignments)
        self.session.raw(text, {"key": value, **{f"v_{c}": v for c, v in columns.items()}})
