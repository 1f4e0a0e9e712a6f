"""Migration 004 on a database from before it: budget keys renamed as a policy update, row ids given."""

from __future__ import annotations

import json
import sqlite3

import pytest
from backend_helpers import open_sqlite, operator_rows, sqlite_file_with

from memgate.manager import Identity, MemoryManager, SchemaMismatch

OLD_BUDGET = {"max_tool_result_tokens": 1500, "max_window_tokens": 12000, "max_tool_rounds": 8}


def _database_without_004(path) -> None:
    """A file as memgate made it before migration 004: the others up to 015 applied (016 moves turns onto
    conversations, which needs 004's columns), old-style budget rows."""
    conn, context = sqlite_file_with(path, lambda version: version != 4 and version < 16)
    for tenant in ("acme", "globex"):
        context.bind(Identity(tenant=tenant))
        conn.execute(
            "INSERT INTO guideline_memory (id, tenant_id, guideline_key, content, content_json, version,"
            " valid_from) VALUES (?, ?, 'context_budget', 'old', ?, 1, '2026-07-01T00:00:00.000Z')",
            (f"gdl_{tenant}_old", tenant, json.dumps(OLD_BUDGET)),
        )
        conn.execute(
            "INSERT INTO guideline_memory (id, tenant_id, guideline_key, content, version, valid_from)"
            " VALUES (?, ?, 'citations', 'cite ids', 1, '2026-07-01T00:00:00.000Z')",
            (f"gdl_{tenant}_cite", tenant),
        )
    conn.close()


def test_a_file_missing_a_lower_migration_is_not_current_and_init_applies_it(sqlite_path):
    _database_without_004(sqlite_path)
    backend = open_sqlite(sqlite_path)
    try:
        with pytest.raises(SchemaMismatch, match="lacks migration\\(s\\) 004|has schema version 15"):
            backend.check_schema()
        backend.migrate()
        backend.check_schema()
        rows = operator_rows(
            backend, "guideline_memory", "WHERE guideline_key = 'context_budget' ORDER BY tenant_id, version"
        )
        assert [(r["tenant_id"], r["row_id"], r["version"]) for r in rows] == [
            ("acme", "context_context_budget", 1),
            ("acme", "context_context_budget", 2),
            ("globex", "context_context_budget", 1),
            ("globex", "context_context_budget", 2),
        ]
        old, new = rows[0], rows[1]
        assert old["valid_until"] == new["valid_from"] and new["valid_until"] is None
        assert (new["source_table"], new["source_id"], new["source_version"]) == ("guideline_memory", "gdl_acme_old", 1)
        assert json.loads(new["content_json"]) == {
            "max_tool_result_tokens": 1500,
            "usable_context": 12000,
            "max_rounds": 8,
        }
        budget = MemoryManager(backend).context_budget(Identity(tenant="acme"))
        assert (budget.usable_context, budget.max_rounds, budget.max_tool_result_tokens) == (12000, 8, 1500)
        [cite] = operator_rows(backend, "guideline_memory", "WHERE id = 'gdl_acme_cite'")
        assert cite["row_id"] == "gdl_acme_cite"  # any other guideline: its first version's id
        # the wall is back: a write with no tenant bound is refused again
        with backend.unwalled_connection() as conn, pytest.raises(sqlite3.IntegrityError, match="write refused"):
            conn.execute("UPDATE base_guideline_memory SET content = 'x'")
    finally:
        backend.close()


def test_a_guideline_written_without_a_row_id_gets_its_own_id(backend):
    with backend.session(Identity(tenant="acme")) as s:
        s.insert(
            "guideline_memory", {"id": "gdl_x", "tenant_id": "acme", "guideline_key": "style", "content": "be brief"}
        )
        assert s.raw("SELECT row_id FROM guideline_memory WHERE id = 'gdl_x'") == [{"row_id": "gdl_x"}]
