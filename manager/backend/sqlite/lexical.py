"""Per-tenant lexical indexes: external-content FTS5 tables, their triggers and views, per tenant.

Each tenant has two, with one slot number: the knowledge base's chunk index (template
sql/sqlite/kb_lexical_index.sql, table base_kb_fts_<slot>) and the conversations' recall index
(sql/sqlite/recall_lexical_index.sql, base_recall_fts_<slot>, over base_conversation_recall). They
are made the first time the tenant opens a session (or by a migration for tenants that already have
rows: 011 for chunks, 017 for turns); an index made from an older version of its template is rebuilt
in place when the schema is migrated (015, 030). Base triggers refuse a chunk or a recall row whose
tenant has no index, so nothing goes unindexed. How many segments an index holds, and merging them,
is lexical_merge.py's.

Walled statements name one view per index, `kb_chunk_match` and `recall_match`: TEMP views of each
pooled connection that point at the bound tenant's `<view>_<slot>` (`point_match_view`), re-pointed
only when the connection is checked out for another tenant. The per-tenant views check the tenant
again, so a connection pointed at the wrong slot would still see nothing.

Calibrated relevance weighs a query's words by how many of the tenant's chunks hold them
(`Session.kb_term_stats`). Three more TEMP objects of each connection serve it, pointed with the
match view: `kb_chunk_vocab`, an fts5vocab table over the bound tenant's index (one row per term:
how many of its chunks hold it); `kb_chunk_count`, the number of chunks the index holds (a count
of its docsize table, one row per indexed chunk); and `kb_query_words` with `kb_query_terms`, an
FTS5 table on the index's own tokenizer and its instance vocabulary, which turn query words into
the terms the index holds (porter stems, identifiers kept whole) without a stemmer in Python.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from functools import lru_cache

from ..sql_files import load_sql

__all__ = [
    "MATCH_VIEW",
    "RECALL_MATCH_VIEW",
    "RECALL_TEMPLATE_VERSION",
    "TEMPLATE_VERSION",
    "ensure_index",
    "index_all_tenants",
    "index_tokenizer",
    "point_match_view",
    "slots",
]

#: the names walled statements read the bound tenant's chunk and recall indexes by
MATCH_VIEW = "kb_chunk_match"
RECALL_MATCH_VIEW = "recall_match"
#: the version of sql/sqlite/kb_lexical_index.sql; an index built from an older one is rebuilt by
#: index_all_tenants (1: porter unicode61; 2, migration 015: identifiers kept whole by tokenchars _;
#: 3, migration 030: automerge 2 and crisismerge 4, so one-row writes leave fewer segments)
TEMPLATE_VERSION = 3
#: the version of sql/sqlite/recall_lexical_index.sql (0 in base_kb_lexical_index: not built yet;
#: 2, migration 030: the chunk index's merge settings)
RECALL_TEMPLATE_VERSION = 2
#: the tokenize option of the template (every index is rebuilt from the current template by migration)
_TOKENIZE = re.compile(r"tokenize\s*=\s*'([^']+)'")


def slots(conn: sqlite3.Connection) -> dict[str, int]:
    """tenant -> slot of every tenant with a lexical index (unwalled read)."""
    try:
        return dict(conn.execute("SELECT tenant_id, slot FROM base_kb_lexical_index").fetchall())
    except sqlite3.OperationalError:  # a file not yet migrated to per-tenant indexes
        return {}


def ensure_index(conn: sqlite3.Connection, tenant: str, run_script: Callable[[sqlite3.Connection, str], None]) -> int:
    """The tenant's slot, making its index first if it has none (`run_script` is schema.run_script).
    Runs in the caller's transaction when one is open, else in its own (the write lock is taken up front)."""
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute("SELECT slot FROM base_kb_lexical_index WHERE tenant_id = ?", (tenant,)).fetchone()
        if row is None:
            slot = conn.execute("SELECT coalesce(max(slot), 0) + 1 FROM base_kb_lexical_index").fetchone()[0]
            conn.execute(
                "INSERT INTO base_kb_lexical_index (tenant_id, slot, template_version, recall_version)"
                " VALUES (?, ?, ?, ?)",
                (tenant, slot, TEMPLATE_VERSION, RECALL_TEMPLATE_VERSION),
            )
            _build(conn, tenant, int(slot), run_script)
            _build_recall(conn, tenant, int(slot), run_script)
        else:
            slot = row[0]
        if own:
            conn.execute("COMMIT")
    except BaseException:
        if own and conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return int(slot)


def index_all_tenants(conn: sqlite3.Connection, run_script: Callable[[sqlite3.Connection, str], None]) -> None:
    """Give every tenant that has chunks or recall rows its indexes, and rebuild every index made from an
    older template (migrations run this in their transaction: indexes are built from the rows)."""
    for (tenant,) in conn.execute(
        "SELECT tenant_id FROM base_knowledge_base_chunk UNION SELECT tenant_id FROM base_conversation_recall"
    ).fetchall():
        ensure_index(conn, tenant, run_script)
    old = conn.execute(
        "SELECT tenant_id, slot FROM base_kb_lexical_index WHERE template_version < ?", (TEMPLATE_VERSION,)
    ).fetchall()
    for tenant, slot in old:
        for kind, name in (
            ("VIEW", f"{MATCH_VIEW}_{int(slot)}"),
            ("TRIGGER", f"base_knowledge_base_chunk__fts_{int(slot)}_insert"),
            ("TRIGGER", f"base_knowledge_base_chunk__fts_{int(slot)}_update"),
            ("TRIGGER", f"base_knowledge_base_chunk__fts_{int(slot)}_delete"),
            ("TABLE", f"base_kb_fts_{int(slot)}"),
        ):
            conn.execute(f"DROP {kind} IF EXISTS main.{name}")
        _build(conn, tenant, int(slot), run_script)
        conn.execute(
            "UPDATE base_kb_lexical_index SET template_version = ? WHERE tenant_id = ?", (TEMPLATE_VERSION, tenant)
        )
    old = conn.execute(
        "SELECT tenant_id, slot, recall_version FROM base_kb_lexical_index WHERE recall_version < ?",
        (RECALL_TEMPLATE_VERSION,),
    ).fetchall()
    for tenant, slot, version in old:
        if version:  # built from an older template: dropped and built again
            for kind, name in (
                ("VIEW", f"{RECALL_MATCH_VIEW}_{int(slot)}"),
                ("TRIGGER", f"base_conversation_recall__fts_{int(slot)}_insert"),
                ("TRIGGER", f"base_conversation_recall__fts_{int(slot)}_update"),
                ("TRIGGER", f"base_conversation_recall__fts_{int(slot)}_delete"),
                ("TABLE", f"base_recall_fts_{int(slot)}"),
            ):
                conn.execute(f"DROP {kind} IF EXISTS main.{name}")
        _build_recall(conn, tenant, int(slot), run_script)
        conn.execute(
            "UPDATE base_kb_lexical_index SET recall_version = ? WHERE tenant_id = ?", (RECALL_TEMPLATE_VERSION, tenant)
        )


def _build(conn: sqlite3.Connection, tenant: str, slot: int, run_script: Callable[[sqlite3.Connection, str], None]):
    """Make the tenant's index, its triggers and its view, and fill the index from the chunk table."""
    run_script(conn, load_sql("sqlite", "kb_lexical_index").format(slot=slot, tenant=_literal(tenant)))


def _build_recall(
    conn: sqlite3.Connection, tenant: str, slot: int, run_script: Callable[[sqlite3.Connection, str], None]
):
    """Make the tenant's recall index, its triggers and its view, and fill it from the recall table."""
    run_script(conn, load_sql("sqlite", "recall_lexical_index").format(slot=slot, tenant=_literal(tenant)))


def point_match_view(conn: sqlite3.Connection, slot: int) -> None:
    """Make this connection's TEMP views kb_chunk_match and recall_match read the tenant's <view>_<slot>,
    and its word statistics (kb_chunk_vocab, kb_chunk_count) read the same tenant's chunk index. Needs no
    authorizer."""
    n = int(slot)
    for view in (MATCH_VIEW, RECALL_MATCH_VIEW):
        conn.execute(f"DROP VIEW IF EXISTS temp.{view}")
        conn.execute(f"CREATE TEMP VIEW {view} AS SELECT * FROM main.{view}_{n}")
    conn.execute("DROP TABLE IF EXISTS temp.kb_chunk_vocab")
    conn.execute(f"CREATE VIRTUAL TABLE temp.kb_chunk_vocab USING fts5vocab(main, base_kb_fts_{n}, row)")
    conn.execute("DROP VIEW IF EXISTS temp.kb_chunk_count")
    conn.execute(f"CREATE TEMP VIEW kb_chunk_count AS SELECT count(*) AS chunks FROM main.base_kb_fts_{n}_docsize")
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.kb_query_words USING fts5(word, tokenize = '{index_tokenizer()}')"
    )
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.kb_query_terms USING fts5vocab(temp, kb_query_words, instance)"
    )


@lru_cache(maxsize=1)
def index_tokenizer() -> str:
    """The tokenize option of a tenant's lexical index, read from its template."""
    m = _TOKENIZE.search(load_sql("sqlite", "kb_lexical_index"))
    if m is None:
        raise ValueError("no tokenize option in sql/sqlite/kb_lexical_index.sql")
    return m.group(1)


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
