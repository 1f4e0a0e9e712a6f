"""The memory_file statements compare-and-set on version, on every backend.

On SQLite the write lock already serialises memory-tool writers; the version check in
each statement is what keeps a backend without that lock from losing an edit, so it is
tested at the statement: a write naming a version the file has left changes nothing.
"""

from __future__ import annotations

import pytest
from backend_helpers import operator_rows, table_digest
from memory_helpers import ACME_AGENT, seed

PATH = "/memories/board.md"
BY = {"updated_by": "stale writer", "now": "2026-12-01T00:00:00.000Z"}
STALE_WRITES = {
    "memory_file_update": {"content": "stale", "size_chars": 5, "size_bytes": 5, **BY},
    "memory_file_move": {"new_path": "/memories/moved.md", **BY},
    "memory_file_delete": {},
}


@pytest.mark.parametrize("statement", sorted(STALE_WRITES))
def test_a_write_at_a_version_the_file_has_left_changes_nothing(manager, backend, statement):
    seed(manager, ACME_AGENT)
    manager.memory(ACME_AGENT, "create", path=PATH, file_text="v1")
    manager.memory(ACME_AGENT, "str_replace", path=PATH, old_str="v1", new_str="v2")
    [row] = operator_rows(backend, "memory_file")
    assert row["version"] == 2
    before = table_digest(backend)
    with backend.session(ACME_AGENT) as s, s.transaction():
        s.execute(statement, id=row["id"], version=1, **STALE_WRITES[statement])
    assert table_digest(backend) == before
