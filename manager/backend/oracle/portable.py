"""Oracle's templates for whole rows by key (manager/backend/portable_rows.py): statements.py holds
the text; VPD applies to them as to every statement of the app account."""

from __future__ import annotations

from ..portable_rows import PortableSql
from . import statements as q

SQL = PortableSql(
    select_keys=q.PORTABLE_SELECT_KEYS.text,
    in_json=q.RETENTION_IN_JSON,
    update_key=q.PORTABLE_UPDATE_KEY.text,
)
