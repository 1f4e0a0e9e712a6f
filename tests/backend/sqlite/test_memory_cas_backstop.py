"""The memory tool's compare-and-set backstop: a write that did not take is never reported as done.

SQLite's write lock keeps a second writer out, so a lost compare-and-set is made here the
only way SQLite allows: a trigger that drops the write (RAISE(IGNORE)), as a backend
without that lock would when another writer saved first. The command must say nothing
was written, and nothing is.
"""

from __future__ import annotations

import pytest
from backend_helpers import table_digest
from memory_helpers import ACME_AGENT, seed

PATH = "/memories/board.md"
CHANGED = f"The file {PATH} changed while this command ran (another writer saved it first); nothing was written."
COMMANDS = {
    "str_replace": ("UPDATE", {"path": PATH, "old_str": "v1", "new_str": "v2"}),
    "insert": ("UPDATE", {"path": PATH, "insert_line": 0, "insert_text": "top"}),
    "rename": ("UPDATE", {"old_path": PATH, "new_path": "/memories/moved.md"}),
    "delete": ("DELETE", {"path": PATH}),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_write_the_database_dropped_is_reported_and_changes_nothing(manager, backend, command):
    seed(manager, ACME_AGENT)
    manager.memory(ACME_AGENT, "create", path=PATH, file_text="v1")
    event, params = COMMANDS[command]
    with backend.unwalled_connection() as conn:
        conn.execute(f"CREATE TRIGGER lost_write BEFORE {event} ON base_memory_file BEGIN SELECT RAISE(IGNORE); END")
    before = table_digest(backend)
    out = manager.memory(ACME_AGENT, command, **params)
    assert (out.is_error, out.text) == (True, CHANGED.replace(PATH, params.get("new_path", PATH)))
    assert table_digest(backend) == before
