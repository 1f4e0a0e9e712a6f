"""Oracle's half of retention and erasure: the templates (statements.py) and what follows an erasure.

The store runs as the schema owner with no identity bound: VPD adds no predicate and the guard
triggers let the operator path through, so binding a scope is a no-op. After the rows, the Oracle
Text indexes (chunks, conversation recall) are optimized (FULL), so the removed rows' tokens leave
their $I tables (a delete only
marks them gone until then). What undo, Flashback and the redo logs keep of erased rows is the
DBA's (docs/oracle.md, "Erased data, undo and Flashback").
"""

from __future__ import annotations

from typing import Any

from ..retention_store import RetentionSql, RetentionStore
from . import statements as q

SQL = RetentionSql(
    select=q.RETENTION_SELECT.text,
    in_json=q.RETENTION_IN_JSON,
    delete=q.RETENTION_DELETE.text,
    update=q.RETENTION_UPDATE.text,
    physical=lambda table: table,
    differs=q.RETENTION_DIFFERS,
)


def retention_store(session: Any, tenant: str) -> RetentionStore:
    def bind_scope(user: str | None, agent: str | None, thread: str | None) -> None:
        """The owner's operator path passes the guards (022): nothing to bind."""

    def finish(compact: bool) -> dict[str, Any]:
        session.raw(q.OPTIMIZE_TEXT_INDEX.text)
        session.raw(q.OPTIMIZE_RECALL_TEXT_INDEX.text)
        return {
            "text_index": "kb_chunk_text_ix and conversation_recall_text_ix optimized (FULL)",
            "note": "undo, Flashback, archived redo and backups keep erased rows for their own retention "
            "(docs/oracle.md, Erased data, undo and Flashback)",
        }

    return RetentionStore(session, tenant, SQL, bind_scope, finish)
